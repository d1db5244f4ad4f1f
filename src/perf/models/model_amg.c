/*
   The AMG solve-cycle model of 002 section IV (docs/bibliography.md): one V-cycle with one smoothing sweep down and one
   up, per level i with C_i unknowns on P cores (the 6 becomes the level's PKAMGLevel.smooth when the smoother
   does more, e.g. hypre's default in PETSc, hybrid symmetric Gauss-Seidel: 10):

     T_smooth^i   = 6 (C_i/P) s_i t_i + 3 (p_i alpha + n_i beta)
     T_restrict^i = 2 (C_{i+1}/P) shat_i t_i + phat_i alpha + nhat_i beta             (i < L-1, else 0)
     T_interp^i   = 2 (C_{i-1}/P) shat_{i-1} t_i + phat_{i-1} alpha + nhat_{i-1} beta  (i > 0, else 0)

   with the penalties: distance alpha(h) = alpha + (h - h_m) gamma; bandwidth and contention
   beta <- beta (B_max/B + m/l); OpenMP/SMT multiplier on t_i (Table I, an input here).

   alpha and beta default to the profile's postal parameters of the protocol of the operator's mean message
   (n doubles over p messages), per level and operator: 002 takes single HPCC values, our profile has per-protocol
   ones. The cycle is split so that comp + comm + distance + bandwidth + contention = total.
*/
#include <pipekrylov/private/pkmodel.h>
#include <pipekrylov/private/pkprofile.h>

typedef struct {
  PetscReal base, distance, bandwidth, contention;
} PKAMGComm;

/* p messages carrying n doubles, times `rep` (3 for the smoother's exchanges) */
static void PKAMGMessages(const PKMachineParams *m, const PKAMGInput *in, PetscReal p, PetscReal n, PetscReal rep, PKAMGComm *c)
{
  PKLocality loc   = in->offnode ? PK_OFF_NODE : PK_ON_NODE;
  PetscReal  alpha = in->alpha, beta = in->beta, gam, bw, ml;

  c->base = c->distance = c->bandwidth = c->contention = 0;
  if (p <= 0 && n <= 0) return;
  if (alpha <= 0 || beta <= 0) {
    PetscReal  mean = p > 0 ? 8.0 * n / p : 8.0 * n;
    PKProtocol pr   = PKModelProtocol(m, loc, mean);
    if (alpha <= 0) alpha = m->alpha[loc][pr];
    if (beta <= 0) beta = 8.0 * m->beta[loc][pr];
  }
  gam           = in->gamma_hop > 0 ? in->gamma_hop : m->hop_latency;
  bw            = in->bw_ratio > 0 ? in->bw_ratio : 1;
  ml            = in->msgs_per_link >= 0 ? in->msgs_per_link : 0;
  c->base       = rep * (p * alpha + n * beta);
  c->distance   = in->h > 0 ? rep * p * PetscMax(0, in->h - in->hm) * gam : 0;
  c->bandwidth  = rep * n * beta * (bw - 1);
  c->contention = rep * n * beta * ml;
}

PetscErrorCode PKModelAMGCycle(const PKMachineParams *m, const PKAMGInput *in, PKAMGResult *r)
{
  const PKAMGLevel *lv = in->lev;
  PetscInt          L  = in->L;
  PetscReal         tm = in->t_mult > 0 ? in->t_mult : 1;

  PetscFunctionBegin;
  PetscCheck(L >= 1 && L <= PK_AMG_MAXLEVELS, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "AMG levels %" PetscInt_FMT " not in [1, %d]", L, PK_AMG_MAXLEVELS);
  PetscCheck(in->P >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "AMG cores %g < 1", (double)in->P);
  PetscCall(PetscMemzero(r, sizeof(*r)));
  r->L = L;
  for (PetscInt i = 0; i < L; i++) {
    PetscReal ti = (lv[i].t > 0 ? lv[i].t : m->flop_time) * tm;
    PKAMGComm cs, cr, ci;

    r->smooth_comp[i] = (lv[i].smooth > 0 ? lv[i].smooth : 6.0) * (lv[i].C / in->P) * lv[i].s * ti;
    PKAMGMessages(m, in, lv[i].p, lv[i].n, 3, &cs);
    cr.base = cr.distance = cr.bandwidth = cr.contention = 0;
    ci                                                   = cr;
    if (i < L - 1) {
      r->restrict_comp[i] = 2.0 * (lv[i + 1].C / in->P) * lv[i].shat * ti;
      PKAMGMessages(m, in, lv[i].phat, lv[i].nhat, 1, &cr);
    }
    if (i > 0) {
      r->interp_comp[i] = 2.0 * (lv[i - 1].C / in->P) * lv[i - 1].shat * ti;
      PKAMGMessages(m, in, lv[i - 1].phat, lv[i - 1].nhat, 1, &ci);
    }
    r->smooth_comm[i]   = cs.base + cs.distance + cs.bandwidth + cs.contention;
    r->restrict_comm[i] = cr.base + cr.distance + cr.bandwidth + cr.contention;
    r->interp_comm[i]   = ci.base + ci.distance + ci.bandwidth + ci.contention;
    r->level[i]         = r->smooth_comp[i] + r->smooth_comm[i] + r->restrict_comp[i] + r->restrict_comm[i] + r->interp_comp[i] + r->interp_comm[i];
    r->comp += r->smooth_comp[i] + r->restrict_comp[i] + r->interp_comp[i];
    r->comm += cs.base + cr.base + ci.base;
    r->distance += cs.distance + cr.distance + ci.distance;
    r->bandwidth += cs.bandwidth + cr.bandwidth + ci.bandwidth;
    r->contention += cs.contention + cr.contention + ci.contention;
    r->total += r->level[i];
  }
  PetscFunctionReturn(0);
}

/* The t_i that makes the cycle model match a measured cycle time: the model's compute is linear in t_i (one t for
   all levels), so t = (measured - communication) / (flops per rank). lev[].t is ignored. *t = 0 when the modelled
   communication alone reaches the measurement (nothing left to attribute to compute). */
PetscErrorCode PKModelAMGFlopTime(const PKMachineParams *m, const PKAMGInput *in, PetscReal measured, PetscReal *t)
{
  PKAMGLevel *lev;
  PKAMGInput  one = *in;
  PKAMGResult r;

  PetscFunctionBegin;
  *t = 0;
  PetscCheck(in->L >= 1 && in->L <= PK_AMG_MAXLEVELS, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "AMG levels %" PetscInt_FMT " not in [1, %d]", in->L, PK_AMG_MAXLEVELS);
  PetscCall(PetscMalloc1(in->L, &lev));
  for (PetscInt l = 0; l < in->L; l++) {
    lev[l]   = in->lev[l];
    lev[l].t = 1.0; /* the compute part is then the flop count */
  }
  one.lev    = lev;
  one.t_mult = 1;
  PetscCall(PKModelAMGCycle(m, &one, &r));
  if (r.comp > 0 && measured > r.total - r.comp) *t = (measured - (r.total - r.comp)) / r.comp;
  PetscCall(PetscFree(lev));
  PetscFunctionReturn(0);
}

/*
   PKAMGLevelsFlopTime - the time per model flop t_i of every level: the profile's amg_flop_time when it has one (a
   BoomerAMG cycle calibrated by pipekrylov-calibrate: a Gauss-Seidel sweep costs more per flop than an SpMV), else
   t_i stays <= 0 and the cycle model takes the SpMV's flop_time. Returns whether amg_flop_time was used.

   Level: developer
*/
PetscBool PKAMGLevelsFlopTime(const PKMachine *m, PetscInt L, PKAMGLevel lev[])
{
  PetscInt i;

  if (PKMachineFieldIndexOf(m, &m->p.amg_flop_time, &i) || i < 0) return PETSC_FALSE;
  if (m->src[i] == PK_SRC_NONE || m->p.amg_flop_time <= 0) return PETSC_FALSE;
  for (PetscInt l = 0; l < L; l++) lev[l].t = m->p.amg_flop_time;
  return PETSC_TRUE;
}
