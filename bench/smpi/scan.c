/*
   MPI_Scan and MPI_Exscan for the programs simulated by SimGrid (linked only in the build for the simulator, make
   SMPI=1). SimGrid 3.32 implements both linearly: every rank sends its values to every rank above it and waits on
   all of them with MPI_Waitany, P^2 / 2 messages whose matching costs grow faster still. PETSc calls MPI_Scan in
   DMCreateMatrix (the ownership ranges), and at 256 simulated ranks that one call took more than six minutes of
   wall time where everything else of the set-up took seconds. Defined in the executable, these take the place of
   SimGrid's for every caller in it (PETSc is linked statically into it).

   The algorithm is Hillis and Steele's: log2 P rounds; in round d every rank sends the combination of the values
   of the 2^d ranks ending at it to rank + 2^d and combines what rank - 2^d sends it, lower ranks on the left (the
   operation need not commute). What they cost in the simulated time does not matter to the studies (set-up, not
   the solve).
*/
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

/* recv = the scan of send over the ranks up to and including this one (inclusive), or below it (exclusive: recv is
   left as is on rank 0) */
static int PKSimScan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm, int inclusive)
{
  int      rank, size, err, have = 0;
  MPI_Aint lb, extent;
  char    *part, *tmp, *acc;
  size_t   bytes;

  if ((err = MPI_Comm_rank(comm, &rank)) || (err = MPI_Comm_size(comm, &size)) || (err = MPI_Type_get_extent(dt, &lb, &extent))) return err;
  bytes = (size_t)extent * (size_t)(count > 0 ? count : 1);
  part  = malloc(bytes); /* the combination of the ranks this rank covers so far, what it sends */
  tmp   = malloc(bytes);
  acc   = malloc(bytes); /* the combination of the ranks below it (exclusive scan) */
  if (!part || !tmp || !acc) {
    free(part);
    free(tmp);
    free(acc);
    return MPI_ERR_NO_MEM;
  }
  memcpy(part, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, bytes);
  for (int d = 1; d < size; d <<= 1) {
    MPI_Request req[2];
    int         n = 0;

    if (rank + d < size && (err = MPI_Isend(part, count, dt, rank + d, 4242, comm, &req[n++]))) break;
    if (rank - d >= 0 && (err = MPI_Irecv(tmp, count, dt, rank - d, 4242, comm, &req[n++]))) break;
    if ((err = MPI_Waitall(n, req, MPI_STATUSES_IGNORE))) break;
    if (rank - d >= 0) {
      /* lower ranks on the left: acc = tmp op acc, part = tmp op part (MPI_Reduce_local: inout = in op inout) */
      if (have && (err = MPI_Reduce_local(tmp, acc, count, dt, op))) break;
      if (!have) memcpy(acc, tmp, bytes);
      have = 1;
      if ((err = MPI_Reduce_local(tmp, part, count, dt, op))) break;
    }
  }
  if (!err) {
    if (inclusive) memcpy(recvbuf, part, bytes);
    else if (have) memcpy(recvbuf, acc, bytes);
  }
  free(part);
  free(tmp);
  free(acc);
  return err;
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
  return PKSimScan(sendbuf, recvbuf, count, dt, op, comm, 1);
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
  return PKSimScan(sendbuf, recvbuf, count, dt, op, comm, 0);
}
