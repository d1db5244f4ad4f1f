/*
   The statistics' private part: PKStats itself is public (pipekrylov.h, KSPPerfMonitorGetStats); src/perf/monitor/stats.c
   computes it.
*/
#ifndef PKSTATS_H
#define PKSTATS_H

#include <pipekrylov.h>
#include <pipekrylov/private/pkrecimpl.h>

PETSC_INTERN PetscErrorCode PKStatsDestroy(PKStats *);

#endif
