# pipekrylov: pipelined Krylov solvers for PETSc with built-in instrumentation and performance models.
#
#   make            build lib/libpipekrylov.so, the examples, the tests' programs and the tools
#   make deps       install the Debian packages it needs (as root), or say what is missing
#   make demo       poisson27 on 2 ranks with pipe2cg and the performance report
#   make check      every test; last line "N passed, N failed"   (TESTS=regex selects some)
#   make check-variants   build against Debian's 64-bit-index and complex PETSc too, run a core subset
#   make check-debian13   the whole suite on Debian 13's PETSc 3.22 / Open MPI 5, in a root file system (root)
#   make bench      side-by-side benchmarks against PETSc's own solvers, then the model accuracy (bench/accuracy)
#   make install PREFIX=/usr/local
#   make clean     the build, not the caches (SimGrid's PETSc, Debian 13's root file system); make distclean: all
#
# PETSc is found with pkg-config (PETSc.pc). PETSC_DIR/PETSC_ARCH, when set, are searched first.

PREFIX       ?= /usr/local
# make 4.3 does not pass variables exported from the makefile to $(shell ...): give the path on the command itself
ifneq ($(PETSC_DIR),)
  PK_PKG_CONFIG_PATH := $(PETSC_DIR)/$(PETSC_ARCH)/lib/pkgconfig:$(PETSC_DIR)/lib/pkgconfig:$(PKG_CONFIG_PATH)
  export PKG_CONFIG_PATH := $(PK_PKG_CONFIG_PATH)
  PKGCONF      := PKG_CONFIG_PATH='$(PK_PKG_CONFIG_PATH)' pkg-config
else
  PKGCONF      := pkg-config
endif
HAVE_PETSC   := $(shell $(PKGCONF) --exists PETSc 2>/dev/null && echo yes)
PETSC_CFLAGS := $(shell $(PKGCONF) --cflags PETSc 2>/dev/null)
PETSC_LIBS   := $(shell $(PKGCONF) --libs PETSc 2>/dev/null)
PETSC_LIBDIR := $(shell $(PKGCONF) --variable=libdir PETSc 2>/dev/null)
PETSC_CC     := $(shell $(PKGCONF) --variable=ccompiler PETSc 2>/dev/null)
# hypre as PETSc was configured with it (empty without hypre): src/perf/report/amg_hierarchy.c reads BoomerAMG's levels
PETSC_VARS   := $(PETSC_LIBDIR)/petsc/conf/petscvariables
HYPRE_INCLUDE:= $(shell sed -n 's/^HYPRE_INCLUDE *= *//p' $(PETSC_VARS) 2>/dev/null)
HYPRE_LIB    := $(shell sed -n 's/^HYPRE_LIB *= *//p' $(PETSC_VARS) 2>/dev/null)
# LAPACK as PETSc was configured with it: the solvers' eigenvalue estimates call steqr, gesvd and geev
BLASLAPACK_LIB := $(shell sed -n 's/^BLASLAPACK_LIB *= *//p' $(PETSC_VARS) 2>/dev/null)
CC            = $(if $(PETSC_CC),$(PETSC_CC),mpicc)
# No -march=native and no -ffast-math: the chunked SpMV must be bit-for-bit equal to PETSc's MatMult.
OPTFLAGS     ?= -O2 -g
# PETSc's and hypre's headers are system headers to us: their own warnings are not ours to fix
PETSC_SYSINC  = $(patsubst -I%,-isystem %,$(PETSC_CFLAGS))
HYPRE_SYSINC  = $(patsubst -I%,-isystem %,$(HYPRE_INCLUDE))
# SMPI=1: the build for SimGrid's simulator (bench/smpi): against a PETSc built with smpicc (bench/smpi/build-petsc),
# without PAPI (the simulated ranks are threads of one process), every program linked with the static archive
# (SimGrid gives each simulated rank its own copy of the executable's globals; a plugin loaded with -dll_append
# would share one copy among them)
ifeq ($(SMPI),1)
  SMPI_FLAGS  = -DPK_SMPI
  PAPI_LIB    =
  # smpicc puts the system library directory first: -lpetsc would find Debian's shared libpetsc
  PETSC_LIBS := $(patsubst -lpetsc,$(PETSC_LIBDIR)/libpetsc.a,$(PETSC_LIBS))
else
  SMPI_FLAGS  =
  PAPI_LIB    = -lpapi
endif
CFLAGS_ALL    = $(OPTFLAGS) -fPIC -std=gnu11 -Wall -Wextra $(SMPI_FLAGS) \
                -Iinclude $(PETSC_SYSINC) $(HYPRE_SYSINC) $(CFLAGS)
RPATH         = -Wl,-rpath,$(PETSC_LIBDIR)
LIBS_ALL      = $(PETSC_LIBS) $(HYPRE_LIB) $(BLASLAPACK_LIB) $(RPATH) $(PAPI_LIB) -lhwloc -lm
# LIB and BUILD may be given elsewhere (make check-variants builds each Debian PETSc variant in build/variants/)
LIB          ?= lib/libpipekrylov.so
BUILD        ?= build

LIB_SRC      := $(shell find src -name '*.c' | sort)
LIB_OBJ      := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
EX_COMMON    := $(wildcard examples/common/*.c)
EX_SRC       := $(wildcard examples/*.c)
# examples/hypre_pcg.c calls hypre directly: built only when PETSc was configured with hypre
ifeq ($(strip $(HYPRE_LIB)),)
  EX_SRC     := $(filter-out examples/hypre_pcg.c,$(EX_SRC))
  ifneq ($(HAVE_PETSC),)
    $(info pipekrylov: this PETSc has no hypre: examples/hypre_pcg is not built; the AMG parts (report, examples/amg, tests/amg) build and say that hypre is missing)
  endif
endif
EX_BIN       := $(EX_SRC:examples/%.c=$(BUILD)/examples/%)
TEST_SRC     := $(wildcard tests/*.c)
TEST_BIN     := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
BENCH_SRC    := $(wildcard bench/*.c)
BENCH_BIN    := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
TOOL_SRC     := $(wildcard bin/*.c)
TOOL_BIN     := $(TOOL_SRC:bin/%.c=$(BUILD)/bin/%)
# The static archive: the same objects; the programs that call what the shared library does not export (the
# models, the machine profiles, the AMG reader, the phase marks) link it instead of libpipekrylov.so
ARCHIVE      := $(BUILD)/libpipekrylov.a
UNIT_TESTS   := amg cost model_unit netcounters noise noise_model perfrec profile topology_unit
UNIT_BIN     := $(UNIT_TESTS:%=$(BUILD)/tests/%)
# examples that call internal functions (the AMG reader and model, the machine profile): linked with the archive too
EX_STATIC    := $(filter $(BUILD)/examples/amg $(BUILD)/examples/kernels $(BUILD)/examples/hypre_pcg,$(EX_BIN))
# every object of ours: header dependencies come from the compiler (-MMD -MP, build/obj/<path>.d)
EX_COMMON_OBJ := $(EX_COMMON:%.c=$(BUILD)/obj/%.o)
DEPFILES     := $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
# a test plugin (-dll_append) that prints the halo counts of an unmodified application's operator
TEST_PLUGIN  := $(BUILD)/tests/libpkhalotest.so

# PETSc's own tutorials, built unmodified: real client applications for -dll_append tests. Debian ships those of
# PETSc x.y in /usr/share/petsc/x.y (libpetscx.y-dev-examples); a PETSc built from source has them in PETSC_DIR.
PETSC_VERSION := $(shell $(PKGCONF) --modversion PETSc 2>/dev/null)
PETSC_MAJMIN := $(word 1,$(subst ., ,$(PETSC_VERSION))).$(word 2,$(subst ., ,$(PETSC_VERSION)))
PETSC_EXAMPLES_DIR ?= $(firstword $(wildcard /usr/share/petsc/$(PETSC_MAJMIN)/share/petsc/examples/src/ksp/ksp/tutorials \
                        $(PETSC_DIR)/share/petsc/examples/src/ksp/ksp/tutorials $(PETSC_DIR)/src/ksp/ksp/tutorials))
PETSC_TUTORIALS := ex2 ex9 ex23 ex45 ex50 ex56
# and one nonlinear tutorial: SNES ex5 (a DMDA, and -snes_mf_operator gives a matrix-free operator)
PETSC_SNES_EXAMPLES_DIR ?= $(PETSC_EXAMPLES_DIR)/../../../snes/tutorials
# and one adjoint tutorial: TS ex20adj (its adjoint solves with KSPSolveTranspose)
PETSC_TS_EXAMPLES_DIR ?= $(PETSC_EXAMPLES_DIR)/../../../ts/tutorials
# none without the tutorials (the tests that use them say SKIP)
ifneq ($(PETSC_EXAMPLES_DIR),)
  TUT_BIN    := $(PETSC_TUTORIALS:%=$(BUILD)/petsc-tutorials/%) $(BUILD)/petsc-tutorials/snes-ex5 $(BUILD)/petsc-tutorials/ts-ex20adj
endif

.PHONY: all deps demo check bench install clean distclean check-petsc check-variants variant-build check-debian13 check-smpi
all: check-petsc $(LIB) $(ARCHIVE) $(EX_BIN) $(TEST_BIN) $(TEST_PLUGIN) $(BENCH_BIN) $(TOOL_BIN) $(TUT_BIN)

check-petsc:
	@test "$(HAVE_PETSC)" = yes || { echo "pipekrylov: PETSc not found by pkg-config (PETSc.pc). Run 'make deps' or set PKG_CONFIG_PATH / PETSC_DIR and PETSC_ARCH."; exit 1; }

deps:
	@sh config/deps.sh

# Objects, each with the headers it includes as dependencies (-MMD -MP write build/obj/<path>.d; -MP keeps a deleted
# header from stopping the build). The library's objects hide every symbol but the public API (PETSC_EXTERN,
# declared in include/pipekrylov.h); the programs' objects (examples, tests, bench, tools) find examples/common.
DEPFLAGS      = -MMD -MP
$(BUILD)/obj/src/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(DEPFLAGS) -fvisibility=hidden -c $< -o $@
$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(DEPFLAGS) -Iexamples/common -c $< -o $@
# the programs' objects are intermediate to make: keep them (not the library's: tests/layers.sh reads those, and a
# missing one is rebuilt)
PROG_OBJ      = $(patsubst %.c,$(BUILD)/obj/%.o,$(EX_SRC) $(EX_COMMON) $(TEST_SRC) $(BENCH_SRC) $(TOOL_SRC) tests/plugin/halotest.c) $(SMPI_OBJ)
.SECONDARY: $(PROG_OBJ)
-include $(DEPFILES)

$(LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libpipekrylov.so -o $@ $(LIB_OBJ) $(LIBS_ALL)

$(ARCHIVE): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $(LIB_OBJ)

LINK_PK_STATIC = $(ARCHIVE) $(LIBS_ALL)
ifeq ($(SMPI),1)
  # SimGrid's MPI_Scan and MPI_Exscan are linear: replaced in the simulated programs (bench/smpi/scan.c)
  # (-Bsymbolic-functions: smpicc links a program as a shared object, whose calls would otherwise go to SimGrid's)
  SMPI_OBJ    = $(BUILD)/obj/bench/smpi/scan.o
  LINK_PK_STATIC = -Wl,-Bsymbolic-functions $(SMPI_OBJ) $(ARCHIVE) $(LIBS_ALL)
  LINK_PK = $(LINK_PK_STATIC)
else
  LINK_PK = -L$(dir $(LIB)) -Wl,-rpath,$(abspath $(dir $(LIB))) -lpipekrylov $(LIBS_ALL)
endif
LINK          = $(CC) $(OPTFLAGS)

# Programs: their own object and examples/common's, linked with the shared library, or with the static archive for
# those that call what the shared library does not export (the models, the machine profiles, the AMG reader)
$(BUILD)/examples/%: $(BUILD)/obj/examples/%.o $(EX_COMMON_OBJ) $(if $(filter 1,$(SMPI)),$(ARCHIVE) $(SMPI_OBJ),$(LIB))
	@mkdir -p $(dir $@)
	$(LINK) $< $(EX_COMMON_OBJ) -o $@ $(LINK_PK)

$(EX_STATIC): $(BUILD)/examples/%: $(BUILD)/obj/examples/%.o $(EX_COMMON_OBJ) $(ARCHIVE)
	@mkdir -p $(dir $@)
	$(LINK) $< $(EX_COMMON_OBJ) -o $@ $(LINK_PK_STATIC)

$(BUILD)/tests/%: $(BUILD)/obj/tests/%.o $(EX_COMMON_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(LINK) $< $(EX_COMMON_OBJ) -o $@ $(LINK_PK)

$(TEST_PLUGIN): $(BUILD)/obj/tests/plugin/halotest.o $(LIB)
	@mkdir -p $(dir $@)
	$(LINK) -shared -Wl,-soname,libpkhalotest.so $< -o $@ $(LINK_PK)

$(UNIT_BIN): $(BUILD)/tests/%: $(BUILD)/obj/tests/%.o $(EX_COMMON_OBJ) $(ARCHIVE)
	@mkdir -p $(dir $@)
	$(LINK) $< $(EX_COMMON_OBJ) -o $@ $(LINK_PK_STATIC)

$(BUILD)/bench/%: $(BUILD)/obj/bench/%.o $(EX_COMMON_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(LINK) $< $(EX_COMMON_OBJ) -o $@ $(LINK_PK)

# Tools: built into build/bin (bin/<tool> is a wrapper script that runs it)
$(BUILD)/bin/%: $(BUILD)/obj/bin/%.o $(ARCHIVE) $(SMPI_OBJ)
	@mkdir -p $(dir $@)
	$(LINK) $< -o $@ $(LINK_PK_STATIC)
# the cluster's counter sampler is plain C (a daemon beside the jobs it measures): no PETSc, no MPI to load
$(BUILD)/bin/pipekrylov-netsampler: $(BUILD)/obj/bin/pipekrylov-netsampler.o
	@mkdir -p $(dir $@)
	$(LINK) $< -o $@
# and so is the tests' traffic generator for the emulated cluster (tests/cluster-tree.sh)
$(BUILD)/tests/netprobe: $(BUILD)/obj/tests/netprobe.o
	@mkdir -p $(dir $@)
	$(LINK) $< -o $@

# Unmodified PETSc tutorials: compiled exactly as PETSc ships them, linked against PETSc only (not pipekrylov).
$(BUILD)/petsc-tutorials/%: $(PETSC_EXAMPLES_DIR)/%.c
	@mkdir -p $(dir $@)
	$(CC) $(OPTFLAGS) $(PETSC_CFLAGS) -w $< -o $@ $(PETSC_LIBS) $(RPATH) -lm
$(BUILD)/petsc-tutorials/snes-%: $(PETSC_SNES_EXAMPLES_DIR)/%.c
	@mkdir -p $(dir $@)
	$(CC) $(OPTFLAGS) $(PETSC_CFLAGS) -w $< -o $@ $(PETSC_LIBS) $(RPATH) -lm
$(BUILD)/petsc-tutorials/ts-%: $(PETSC_TS_EXAMPLES_DIR)/%.c
	@mkdir -p $(dir $@)
	$(CC) $(OPTFLAGS) $(PETSC_CFLAGS) -w $< -o $@ $(PETSC_LIBS) $(RPATH) -lm

# demo, check and bench install what is missing first, then build in a fresh make (so that pkg-config sees PETSc).
demo: deps
	@$(MAKE) --no-print-directory all
	@# calibrate where the user is, once: this host's profile in $$XDG_CACHE_HOME/pipekrylov (the report uses it)
	@test -f "$$(bin/pipekrylov-calibrate -cache_path)" || sh tests/usermpi.sh 2 bin/pipekrylov-calibrate
	@sh tests/usermpi.sh 2 $(BUILD)/examples/poisson27 -ksp_type pipe2cg -pc_type jacobi -ksp_perfmodel_view -ksp_converged_reason

check: deps
	@$(MAKE) --no-print-directory all
	@bash tests/run $(if $(TESTS),-k '$(TESTS)')

# pipekrylov under SimGrid's simulator: PETSc built with smpicc once under build/smpi (bench/smpi/build-petsc,
# 20-40 minutes on 2 cores), then the simulated tests (tests/suites/95-smpi.sh; make check runs them only where that
# PETSc is built, and says SKIP otherwise). The study at 16 to 256 simulated ranks is bench/smpi/run.
check-smpi: deps
	@$(MAKE) --no-print-directory all
	@command -v smpicc >/dev/null 2>&1 || { echo "SKIP: SimGrid is not installed (libsimgrid-dev)"; exit 0; }; \
	  sh bench/smpi/build-petsc build/smpi >build/smpi-petsc.log 2>&1 || { tail -5 build/smpi-petsc.log; exit 1; }; \
	  bash tests/run -k '^smpi-'

# Each Debian PETSc variant (64-bit indices, complex) in its own build/variants/<name>, with a core subset of the
# tests (the six solvers against PETSc's on ex2, the report, the trace); a variant not installed is skipped.
check-variants:
	@bash tests/variants.sh

# The whole suite on Debian 13's stack (PETSc 3.22, Open MPI 5, hypre 2.32) in a root file system under
# build/debian13 made by mmdebstrap (root; SKIP with the reason otherwise). TESTS=regex selects some.
check-debian13:
	@bash tests/debian13.sh $(if $(TESTS),-k '$(TESTS)')

# what tests/variants.sh builds in a variant's directory
variant-build: check-petsc $(LIB) $(BUILD)/examples/poisson27 $(BUILD)/petsc-tutorials/ex2 $(BUILD)/petsc-tutorials/ex23

bench: deps
	@$(MAKE) --no-print-directory all
	@bash bench/run
	@bash bench/accuracy

# where make install puts the petsc4py module (add it to PYTHONPATH unless PREFIX is /usr/local, which Debian's python3
# searches as /usr/local/lib/python3/dist-packages)
PYTHONDIR ?= $(PREFIX)/lib/python3/dist-packages

install: all
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(LIB) $(DESTDIR)$(PREFIX)/lib/
	install -m 644 include/pipekrylov.h $(DESTDIR)$(PREFIX)/include/
	for t in $(TOOL_BIN) $(filter-out %.c $(TOOL_SRC:%.c=%),$(wildcard bin/pipekrylov-*)); do install -m 755 $$t $(DESTDIR)$(PREFIX)/bin/; done
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@PETSC_LIBDIR@|$(PETSC_LIBDIR)|g' config/pipekrylov.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/pipekrylov.pc
	@# the petsc4py module (python/pipekrylov): import pipekrylov; pipekrylov.register() loads this library
	install -d $(DESTDIR)$(PYTHONDIR)/pipekrylov
	install -m 644 python/pipekrylov/__init__.py $(DESTDIR)$(PYTHONDIR)/pipekrylov/
	printf 'LIBRARY = "%s"\n' "$(PREFIX)/lib/libpipekrylov.so" > $(DESTDIR)$(PYTHONDIR)/pipekrylov/_config.py

# clean removes what make builds (the plugin, its programs, the tests' outputs), but keeps the two caches that take
# long to make again, and the simulated results beside them: the SimGrid PETSc under build/smpi (20-40 minutes; the
# plugin's simulated build there, build/smpi/pk, goes) and Debian 13's root file system, build/debian13.
# distclean removes all of build/.
clean:
	rm -rf lib $(filter-out $(BUILD)/smpi $(BUILD)/debian13,$(wildcard $(BUILD)/*)) $(BUILD)/smpi/pk

distclean: clean
	rm -rf $(BUILD)
