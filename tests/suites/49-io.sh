# shellcheck shell=bash
# Failed writes said once and clearly, files known by what they are, and outputs that never mix (issue 19, sections
# 4 and 6): the trace (-ksp_perf_trace) and the per-block reports (-sub_ksp_perfmodel_view).
export IO=$PK_BUILD/tests/io
export MPI=$PK_ROOT/tests/mpirun.sh
export EX2=$PK_BUILD/petsc-tutorials/ex2 EX9=$PK_BUILD/petsc-tutorials/ex9 P27=$PK_BUILD/examples/poisson27
rm -rf "$IO"
mkdir -p "$IO"

# io_once REGEX CMD...: CMD succeeds (the solve is not affected) and prints REGEX exactly once
io_once() {
  local re=$1 out n; shift
  out=$("$@" 2>&1) || { rc=$?; echo "$out"; echo "FAIL: exit status $rc"; return 1; }
  echo "$out" | grep -v '^mca_fbtl' # Open MPI's own lines about pwritev are not ours to count
  n=$(echo "$out" | grep -cE "$re")
  echo "matched $n time(s)"
  [ "$n" = 1 ]
}
# rows of a trace (the header line not counted)
io_rows() { tail -n +2 "$1" | wc -l; }
export -f io_once io_rows

# The trace: a file that cannot take the rows says which file and why, once, and tracing stops (MPI_File_write_at_all
# returned success and half the rows were lost, with only Open MPI's pwritev message)
# (Open MPI 4 reports success and 0 bytes written, Open MPI 5 an error: the message says why in both)
t io-trace-proc-file io_once "ERROR pipekrylov: cannot write the trace file /proc/self/status \(-ksp_perf_trace\): (0 of [0-9]+ bytes of solve 0 written: )?it is a /proc or /sys file" \
  "$MPI" 2 "$P27" -rows_per_rank 1000 -ksp_type pcg -pc_type jacobi -nsolves 3 -ksp_perf_trace /proc/self/status
io_trace_full_disk() { # a 8 KiB tmpfs (a mount namespace of the test's own) fills up in the second solve; Open MPI 4
  # writes part and returns success (the message counts the bytes), Open MPI 5 returns an error (it says so)
  mkdir -p "$IO/small" && cd "$IO" && unshare -m bash -c 'mount -t tmpfs -o size=8k tmpfs small || exit 3; "$@"' bash io_once \
    "ERROR pipekrylov: cannot write the trace file small/t.csv \(-ksp_perf_trace\): ([0-9]+ of [0-9]+ bytes of solve 1 written: )?no space left on its file system" \
    "$MPI" 2 "$P27" -rows_per_rank 1000 -ksp_type pcg -pc_type jacobi -nsolves 4 -ksp_perf_trace small/t.csv
}
export -f io_trace_full_disk
if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null || ! command -v mount >/dev/null; then skip io-trace-full-disk "no mount namespace or no mount command here (needs root): a small tmpfs is the full disk"
else t io-trace-full-disk bash -c io_trace_full_disk
fi
# ... and a trace path that is a symbolic link is never written through (root in a shared directory)
io_trace_link() {
  rm -f "$IO/victim" "$IO/link.csv"; printf 'not a trace\n' >"$IO/victim"; ln -s "$IO/victim" "$IO/link.csv"
  io_once "ERROR pipekrylov: cannot open the trace file .*link.csv \(-ksp_perf_trace\): it is a symbolic link" \
    "$MPI" 2 "$P27" -rows_per_rank 1000 -ksp_type pcg -nsolves 2 -ksp_perf_trace "$IO/link.csv" || return 1
  [ "$(cat "$IO/victim")" = "not a trace" ] || { echo "FAIL: written through the link"; return 1; }
}
export -f io_trace_link
t io-trace-link-refused io_trace_link

# Two spellings of one trace path (t.csv, ./t.csv) are one file: both KSPs' rows are kept (each spelling opened and
# truncated the file, and one KSP's rows were lost); the same rows as two files of their own
io_trace_spellings() {
  cd "$IO" && rm -f t.csv a.csv b.csv || return 1
  "$MPI" 2 "$EX9" -dll_append "$PK_LIB" -ksp_type pipecg -s2_ksp_type cg -ksp_perf_trace a.csv -s2_ksp_perf_trace b.csv >/dev/null || return 1
  "$MPI" 2 "$EX9" -dll_append "$PK_LIB" -ksp_type pipecg -s2_ksp_type cg -ksp_perf_trace t.csv -s2_ksp_perf_trace ./t.csv >/dev/null || return 1
  echo "two files: $(io_rows a.csv) + $(io_rows b.csv) rows; one file, two spellings: $(io_rows t.csv) rows, ksp ids $(tail -n +2 t.csv | cut -d, -f2 | sort -u | tr '\n' ' ')"
  [ "$(io_rows t.csv)" = $(($(io_rows a.csv) + $(io_rows b.csv))) ] && [ "$(tail -n +2 t.csv | cut -d, -f2 | sort -u | tr '\n' ' ')" = "0 1 " ]
}
export -f io_trace_spellings
t_grep io-trace-two-spellings "one file, two spellings" io_trace_spellings
# Every KSP of a shared trace has an id of its own: 20 blocks of bjacobi on one rank, ids 0..19 (they stopped at 16)
io_trace_many_ksps() {
  cd "$IO" && rm -f sub.csv || return 1
  "$EX2" -dll_append "$PK_LIB" -m 40 -n 40 -pc_type bjacobi -pc_bjacobi_blocks 20 -sub_ksp_type cg -sub_pc_type jacobi -sub_ksp_max_it 3 -sub_ksp_perf_trace sub.csv >/dev/null || return 1
  echo "ksp ids: $(tail -n +2 sub.csv | cut -d, -f2 | sort -n | uniq | tr '\n' ' ')"
}
export -f io_trace_many_ksps
t_grep io-trace-many-ksps "ksp ids: 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 $" io_trace_many_ksps

# Per-block reports (-sub_ksp_perfmodel_view ascii:rep.txt with bjacobi) never mix: every report the blocks print to
# standard output is in the file, on one rank (the blocks' viewers each truncated the file: 1 of 12 kept) and on two
# (each rank writes rep.txt.<r>, as the trace does; in one file 8 of 18 were kept)
io_report_blocks() { # io_report_blocks NP EXTRA...
  local np=$1 want got f; shift
  cd "$IO" && rm -f rep.txt rep.txt.* || return 1
  set -- -dll_append "$PK_LIB" -m 24 -n 24 -pc_type bjacobi -sub_ksp_type cg -sub_pc_type jacobi -sub_ksp_max_it 3 -ksp_max_it 2 "$@"
  want=$("$MPI" "$np" "$EX2" "$@" -sub_ksp_perfmodel_view | grep -o 'pipekrylov performance report' | wc -l) || return 1
  "$MPI" "$np" "$EX2" "$@" -sub_ksp_perfmodel_view ascii:rep.txt >/dev/null || return 1
  got=0
  for f in rep.txt*; do got=$((got + $(grep -c '^pipekrylov performance report' "$f"))); done
  echo "files: $(ls rep.txt* | tr '\n' ' '); reports: $got of $want"
  [ "$want" -gt 1 ] && [ "$got" = "$want" ]
}
export -f io_report_blocks
t_grep io-report-blocks-one-rank "files: rep.txt ; reports: ([0-9]+) of \1" io_report_blocks 1 -pc_bjacobi_blocks 4
t_grep io-report-blocks-per-rank "files: rep.txt.0 rep.txt.1 ; reports: ([0-9]+) of \1" io_report_blocks 2
# A refused viewer type or format leaves no file behind (the file was created before the refusal)
io_report_refused() { # io_report_refused VALUE FILE
  cd "$IO" && rm -f "$2" || return 1
  "$MPI" 2 "$P27" -rows_per_rank 1000 -ksp_type pcg -ksp_perfmodel_view "$1"; rc=$?
  if [ -e "$2" ]; then echo "FAIL: $2 was left behind"; return 1; fi
  return $((!rc))
}
export -f io_report_refused
t_grep io-report-refused-type-no-file "ksp_perfmodel_view supports ASCII viewers .*, not binary" io_report_refused binary:x.bin x.bin
t_grep io-report-refused-format-no-file "ksp_perfmodel_view supports the formats ascii_info, ascii_info_detail and ascii_csv, not ASCII_LATEX" io_report_refused ascii:y.txt:ascii_latex y.txt
# ... and a report file that is a symbolic link is refused, not written through
io_report_link() {
  cd "$IO" && rm -f rvictim rlink.txt && printf 'not a report\n' >rvictim && ln -s rvictim rlink.txt || return 1
  "$MPI" 2 "$P27" -rows_per_rank 1000 -ksp_type pcg -ksp_perfmodel_view ascii:rlink.txt && { echo "FAIL: accepted"; return 1; }
  [ "$(cat rvictim)" = "not a report" ] || { echo "FAIL: written through the link"; return 1; }
}
export -f io_report_link
t_grep io-report-link-refused "ksp_perfmodel_view: cannot write the report to rlink.txt: it is a symbolic link" io_report_link
# A report that cannot be written is an error naming the file and the reason, with a non-zero exit status (a report
# to /dev/full was lost with exit status 0): to a file, on 1 and 2 ranks, and to a full standard output
t_fail io-report-dev-full "ksp_perfmodel_view: the report could not be written to /dev/full: No space left on device" "$P27" -rows_per_rank 1000 -ksp_type pcg -ksp_perfmodel_view ascii:/dev/full
t_fail io-report-dev-full-np2-csv "ksp_perfmodel_view: the report could not be written to /dev/full: No space left on device" "$MPI" 2 "$P27" -rows_per_rank 1000 -ksp_type pcg -ksp_perfmodel_view ascii:/dev/full:ascii_csv
io_report_stdout_full() { "$P27" -rows_per_rank 1000 -ksp_type pcg -ksp_perfmodel_view "$@" >/dev/full; }
export -f io_report_stdout_full
t_fail io-report-stdout-full "ksp_perfmodel_view: the report could not be written to standard output: No space left on device" io_report_stdout_full
t_fail io-report-ascii-stdout-full "ksp_perfmodel_view: the report could not be written to standard output: No space left on device" io_report_stdout_full ascii:stdout:ascii_info
# "stdout" alone is a viewer type in PETSc's syntax (PETSc's -ksp_view stdout is refused too): the message says what
# works instead of listing "stdout" as supported
t_fail io-report-stdout-type "ksp_perfmodel_view stdout: the viewer type comes first, as in every PETSc viewer option: for standard output give ascii:stdout or no value" "$P27" -rows_per_rank 1000 -ksp_type pcg -ksp_perfmodel_view stdout
t_grep io-report-ascii-stdout "^pipekrylov performance report" "$P27" -rows_per_rank 1000 -ksp_type pcg -ksp_perfmodel_view ascii:stdout

# Smaller (issue 19): -ksp_pipe_chunks beyond PetscInt is refused (it was read as 276447231); -ksp_pipe_check_symmetry
# on a matrix-free operator says it cannot check (it ended in PETSc's "Matrix of type mffd does not support checking")
t_fail io-chunks-overflow "ksp_pipe_chunks 99999999999999 is out of range: at most 2147483647" "$P27" -rows_per_rank 512 -ksp_type pipecg -ksp_pipe_chunks 99999999999999
t_grep io-chunks-largest "CONVERGED_RTOL" "$P27" -rows_per_rank 512 -ksp_type pipecg -ksp_pipe_chunks 2147483647
t_fail io-symmetry-matrix-free "ksp_pipe_check_symmetry cannot check this operator: a matrix of type mffd \(matrix-free\) has no MatIsSymmetric" \
  "$PK_BUILD/petsc-tutorials/snes-ex5" -dll_append "$PK_LIB" -snes_mf -ksp_type pcg -pc_type none -ksp_pipe_check_symmetry

# bin/pipekrylov-place (issue 19, section 5): --nodes x --ppn beyond what it places is refused (65536 x 32768
# overflowed to "No ranks"); --hosts names are checked (spaces and newlines made lines of the rankfile of their own,
# "a,,c" was read as two hosts); a huge grid is placed quickly (the search counts each block layout per direction:
# 100000 nodes x 8 on a 10000^3 grid ran past 100 s, now well under one; the generous limit only catches a hang)
export PLACE=$PK_ROOT/bin/pipekrylov-place
t_fail io-place-ranks-overflow "--nodes 65536 x --ppn 32768 = 2147483648 ranks: more than the 16777216 this tool places" "$PLACE" --nodes 65536 --ppn 32768 --grid 64x64 --rankfile "$IO/rf"
t_fail io-place-hosts-empty "--hosts has an empty host name in 'a,,c'" "$PLACE" --nodes 3 --ppn 2 --grid 64x64 --hosts a,,c --rankfile "$IO/rf"
t_fail io-place-hosts-space "--hosts: a host name holds letters, digits, '.', '-' and '_' only, not 'a b'" "$PLACE" --nodes 2 --ppn 2 --grid 64x64 --hosts "a b,c" --rankfile "$IO/rf"
t_fail io-place-hosts-newline "--hosts: a host name holds letters, digits" "$PLACE" --nodes 2 --ppn 2 --grid 64x64 --hosts "$(printf 'a\nrank 9=evil,c')" --rankfile "$IO/rf"
io_place_huge() {
  rm -f "$IO/rf-huge"
  timeout 120 "$PLACE" --nodes 100000 --ppn 8 --grid 10000x10000x10000 --format slurm --rankfile "$IO/rf-huge" || { echo "FAIL: exit status $?"; return 1; }
  echo "rankfile lines: $(wc -l <"$IO/rf-huge")"
  rm -f "$IO/rf-huge"
}
export -f io_place_huge
t_grep io-place-huge-grid "^placed: process grid 100x80x100, each node a 2x2x2 block" io_place_huge
# the rankfile goes through a temporary file and a rename: a link at its path is refused, not written through
io_place_link() {
  rm -f "$IO/pvictim" "$IO/plink" && printf 'keep\n' >"$IO/pvictim" && ln -s "$IO/pvictim" "$IO/plink" || return 1
  "$PLACE" --nodes 2 --ppn 2 --grid 64x64 --rankfile "$IO/plink" && { echo "FAIL: accepted"; return 1; }
  [ "$(cat "$IO/pvictim")" = keep ] || { echo "FAIL: written through the link"; return 1; }
}
export -f io_place_link
t_grep io-place-rankfile-link "cannot write the rankfile: '.*plink' is a symbolic link" io_place_link

# bin/pipekrylov-plot (issue 19, section 5): input that is not UTF-8 text is a clear error (it ended in a Python
# traceback); a report CSV cut short is an error naming it (it was plotted silently): every report block ends with
# the row end,report
io_plot_inputs() { # a trace and a report of 2 ranks, made once
  [ -s "$IO/pt.csv" ] && [ -s "$IO/pr.csv" ] && return 0
  "$MPI" 2 "$P27" -rows_per_rank 1000 -ksp_type pcg -pc_type jacobi -ksp_perf_trace "$IO/pt.csv" -ksp_perfmodel_view "ascii:$IO/pr.csv:ascii_csv" -ksp_perf_papi_events none >/dev/null
}
io_plot_latin1() {
  io_plot_inputs || return 1
  { head -3 "$IO/pt.csv"; printf 'caf\351,1,2\n'; } >"$IO/latin1.csv"
  "$PK_ROOT/bin/pipekrylov-plot" "$IO/latin1.csv" -o "$IO/latin1.png" 2>&1; rc=$?
  return $((rc == 0))
}
io_plot_binary_report() {
  io_plot_inputs || return 1
  head -c 300 /dev/urandom | tr '\n' x >"$IO/bin.csv"
  { printf 'section,name,value,unit,status\n'; head -c 200 /dev/urandom | tr -d '\n'; printf '\n'; } >"$IO/binrep.csv"
  "$PK_ROOT/bin/pipekrylov-plot" "$IO/pt.csv" --report "$IO/binrep.csv" --figure model -o "$IO/m.png" 2>&1; rc=$?
  return $((rc == 0))
}
io_plot_truncated_report() { # the report cut at half its size (the middle of a line) and at a line's end
  io_plot_inputs || return 1
  head -c $(($(wc -c <"$IO/pr.csv") / 2)) "$IO/pr.csv" >"$IO/half.csv"
  head -n $(($(wc -l <"$IO/pr.csv") - 3)) "$IO/pr.csv" >"$IO/lines.csv"
  for f in half lines; do
    "$PK_ROOT/bin/pipekrylov-plot" --report "$IO/$f.csv" --figure model -o "$IO/$f.png" 2>&1 && { echo "FAIL: $f.csv plotted"; return 1; }
  done
  "$PK_ROOT/bin/pipekrylov-plot" --report "$IO/pr.csv" --figure model -o "$IO/whole.png" >/dev/null || { echo "FAIL: the whole report was refused"; return 1; }
  echo "whole report plotted"
}
export -f io_plot_inputs io_plot_latin1 io_plot_binary_report io_plot_truncated_report
t_grep io-plot-not-utf8 "pipekrylov-plot: .*latin1.csv is not a pipekrylov trace: not UTF-8 text \(byte [0-9]+ is 0xe9" io_plot_latin1
t_grep io-plot-binary-report "pipekrylov-plot: .*binrep.csv is not a pipekrylov report in CSV form: not UTF-8 text" io_plot_binary_report
t_grep io-plot-truncated-report "the report .*lines.csv is truncated: its last block has no end,report row" io_plot_truncated_report
