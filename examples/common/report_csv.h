/*
   The examples print the model beside the measurement by reading pipekrylov's own report in its CSV form
   (-ksp_perfmodel_view ascii:<file>:ascii_csv, "section,name,value,unit,status" lines; README "The performance
   report"). PKReportCSVBegin() asks for that report in a temporary file for one KSP (unless the user already asked
   for a report with that prefix: then it does nothing and PKReportCSVGet() finds nothing); after the KSP is
   destroyed (which closes the file), PKReportCSVRead() reads the last solve's block on rank 0 and broadcasts it.
*/
#ifndef PK_REPORT_CSV_H
#define PK_REPORT_CSV_H

#include <petscksp.h>

#define PK_REPORT_CSV_MAX 128

typedef struct {
  char      path[PETSC_MAX_PATH_LEN];
  char      prefix[64];
  PetscBool ours;                       /* we asked for the report (the user did not) */
  PetscInt  n;                          /* rows of the last block */
  char      key[PK_REPORT_CSV_MAX][64]; /* "section,name" */
  PetscReal val[PK_REPORT_CSV_MAX];
} PKReportCSV;

PetscErrorCode PKReportCSVBegin(MPI_Comm, const char[], const char[], PKReportCSV *);
PetscErrorCode PKReportCSVRead(MPI_Comm, PKReportCSV *);
PetscBool      PKReportCSVGet(const PKReportCSV *, const char[], PetscReal *);

#endif
