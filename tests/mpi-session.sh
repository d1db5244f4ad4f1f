# shellcheck shell=sh
# Sourced by tests/mpirun.sh and tests/usermpi.sh: each launch gets a session directory of its own under the test
# run's private one (PK_MPI_SESSIONS, made and removed by tests/run). Two launches starting at the same moment race
# to create Open MPI 4's shared /tmp/ompi.<host>.<uid> (removed again when the last job leaves it), and the loser's
# orte_init fails ("A call to mkdir was unable to create the desired directory ... File exists"; seen on a fresh
# machine, 2026-11-29, with two suites running). Outside tests/run, Open MPI's own default is kept.
if [ -n "${PK_MPI_SESSIONS:-}" ] && [ -d "$PK_MPI_SESSIONS" ] && _pk_sess=$(mktemp -d "$PK_MPI_SESSIONS/s.XXXXXX"); then
  export OMPI_MCA_orte_tmpdir_base="$_pk_sess" PRTE_MCA_prte_tmpdir_base="$_pk_sess"
fi
