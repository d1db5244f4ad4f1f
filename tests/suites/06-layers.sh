# The layers of docs/architecture.md, checked with nm on the objects: src/ksp and src/perf do not reference each
# other's symbols, the core references neither, the models reference neither the monitor nor the report.
t_grep layers-nm 'layers: ok' bash "$PK_ROOT/tests/layers.sh" "$PK_BUILD/obj/src"
