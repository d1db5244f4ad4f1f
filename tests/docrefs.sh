#!/usr/bin/env bash
# Every file the repository cites by path (in the README, docs/, the sources and headers, tests, bench, bin, examples,
# config, the makefile) exists in it, and every section of docs/algorithms.md or docs/models.md cited by number
# ("docs/algorithms.md §8", "[models.md](models.md) §1.3") has a heading there. Build products (build/..., lib/...)
# and patterns (src/perf/models/model_*.c) are not checked; a program may be cited by its name (tests/compare for
# tests/compare.c). Prints every dangling citation; exit 1 if any.
#   tests/docrefs.sh     (run from anywhere)
set -u
cd "$(dirname "$0")/.." || exit 1
git ls-files -z -- README.md makefile docs src include tests bench bin examples config | perl -0 -ne '
  BEGIN {
    # files named as an example of what a port would add, not as a file of the repository
    %hypothetical = map { $_ => 1 } qw(src/perf/monitor/petsclog320.c);
    for my $d (qw(algorithms models)) {
      open(my $h, "<", "docs/$d.md") or die "docs/$d.md: $!";
      local $/ = "\n";
      while (<$h>) { $sec{$d}{$1} = 1 if /^#{2,4} (\d+(?:\.\d+)*)[. ]/ }
    }
    $bad = 0;
  }
  chomp(my $f = $_);
  next if -B $f;
  open(my $h, "<", $f) or next;
  local $/ = "\n";
  while (my $l = <$h>) {
    while ($l =~ m#(?<![A-Za-z0-9_./-])((?:src|include|docs|tests|bench|bin|examples|config)/[A-Za-z0-9_./-]*[A-Za-z0-9_])(?![A-Za-z0-9_./-]*[*<{\$])#g) {
      my $p = $1;
      next if -e $p || -e "$p.c" || $hypothetical{$p}; # a program is cited by the name of its source
      print "$f:$.: cites $p, which is not in the repository\n"; $bad = 1;
    }
    while ($l =~ m#\b(algorithms|models)\.md\)?`?,? §\s?(\d+(?:\.\d+)*)#g) {
      next if $sec{$1}{$2};
      print "$f:$.: cites docs/$1.md §$2, which has no such section\n"; $bad = 1;
    }
  }
  END { print $bad ? "dangling citations found\n" : "docrefs: every cited file and section exists\n"; exit $bad }
'
