# shellcheck shell=bash
# The layers of docs/architecture.md, checked with nm on the objects: src/ksp and src/perf do not reference each
# other's symbols, the core references neither, the models reference neither the monitor nor the report.
t_grep layers-nm 'layers: ok' bash "$PK_ROOT/tests/layers.sh" "$PK_BUILD/obj/src"
# Every file and every docs/algorithms.md or docs/models.md section the repository cites (README, docs, sources,
# tests, tools) exists in it (issue 8: a reader of the repository has everything it cites)
t_grep docs-cited-exist 'every cited file and section exists' bash "$PK_ROOT/tests/docrefs.sh"
