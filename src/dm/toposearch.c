/*
   The search for the topology-aware placement (topoplace.c says what it minimises): the cost of an assignment of
   node blocks to leaf switches, the exhaustive branch and bound, and the heuristic (recursive bisection down the
   tree, then pairwise swaps). Plain functions of the PKSearch that topoplace.c builds; no MPI, no files.
*/
#include "dmimpl.h"

static inline PetscInt PKOther(const PKSearch *S, PetscInt e, PetscInt g)
{
  return S->efrom[e] == g ? S->eto[e] : S->efrom[e];
}

/* w bytes from leaf switch a to leaf switch b: up the uplinks from a to the lowest common switch, down to b (the
   route of PKTopoRoute without the host links). Adds w x links to the total; an addition may raise busy. */
static void PKRoute(PKSearch *S, PetscInt a, PetscInt b, PetscReal w)
{
  while (a != b) {
    PetscReal *l;
    if (S->lev[a] >= S->lev[b]) {
      l = &S->load[2 * a + PK_TOPO_UP];
      a = S->par[a];
    } else {
      l = &S->load[2 * b + PK_TOPO_DOWN];
      b = S->par[b];
    }
    *l += w;
    S->total += w;
    if (*l > S->busy) S->busy = *l;
  }
}

static inline void PKEdge(PKSearch *S, PetscInt e, PetscReal sign)
{
  PKRoute(S, S->lsw[S->gl[S->efrom[e]]], S->lsw[S->gl[S->eto[e]]], sign * S->ew[e]);
}

static PetscReal PKBusiest(const PKSearch *S)
{
  PetscReal b = 0;
  for (PetscInt i = 0; i < 2 * S->nsw; i++) b = PetscMax(b, S->load[i]);
  return b;
}

/* The loads of the whole assignment S->gl */
void PKEvaluate(PKSearch *S)
{
  for (PetscInt i = 0; i < 2 * S->nsw; i++) S->load[i] = 0;
  S->total = S->busy = 0;
  for (PetscInt e = 0; e < S->ne; e++) PKEdge(S, e, 1.0);
}

/* (t1, b1) better than (t2, b2): fewer bytes on the switch-to-switch links, then a lighter busiest link */
static inline PetscBool PKBetter(PetscReal t1, PetscReal b1, PetscReal t2, PetscReal b2)
{
  return (PetscBool)(t1 < t2 || (t1 == t2 && b1 < b2));
}

PetscErrorCode PKSearchDestroy(PKSearch *S)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(S->par));
  PetscCall(PetscFree(S->lev));
  PetscCall(PetscFree(S->efrom));
  PetscCall(PetscFree(S->eto));
  PetscCall(PetscFree(S->ew));
  PetscCall(PetscFree(S->ioff));
  PetscCall(PetscFree(S->inc));
  PetscCall(PetscFree(S->csum));
  PetscCall(PetscFree(S->lsw));
  PetscCall(PetscFree(S->lcap));
  PetscCall(PetscFree(S->lord));
  PetscCall(PetscFree(S->gl));
  PetscCall(PetscFree(S->load));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Exhaustive: branch and bound */

typedef struct {
  PetscInt64 maxsteps;
  PetscBool  aborted, found;
  PetscReal  bt, bb; /* the best so far (starts at the node-aware order's cost: only better ones are kept) */
  PetscReal  nab;    /* the node-aware order's busiest link: no result may exceed it */
  PetscInt  *best;   /* [B] its leaves */
  PetscInt  *used;   /* [nl] blocks placed under each leaf */
  PetscInt  *eqprev; /* [nl] the previous leaf of the same parent and size, -1: such leaves are filled in order */
} PKExhaustive;

/* Blocks 0 .. g-1 are placed; place g under every leaf with room. A partial assignment carries the bytes between the
   blocks placed so far, which only grow as more are placed: once it is no better than the best, nothing below is. */
static void PKBranch(PKSearch *S, PKExhaustive *X, PetscInt g)
{
  if (g == S->B) {
    X->bt    = S->total;
    X->bb    = S->busy;
    X->found = PETSC_TRUE;
    for (PetscInt q = 0; q < S->B; q++) X->best[q] = S->gl[q];
    return;
  }
  for (PetscInt L = 0; L < S->nl && !X->aborted; L++) {
    const PetscReal t0 = S->total, b0 = S->busy;
    if (X->used[L] == S->lcap[L]) continue;
    /* mirror images: two sibling leaves of one size are interchangeable, so the later one is opened only after
       the earlier one (swapping their contents permutes the link loads, leaving the sum and the largest) */
    if (X->eqprev[L] >= 0 && !X->used[X->eqprev[L]]) continue;
    if (++S->steps > X->maxsteps) {
      X->aborted = PETSC_TRUE;
      return;
    }
    S->gl[g] = L;
    X->used[L]++;
    for (PetscInt t = S->ioff[g]; t < S->ioff[g + 1]; t++)
      if (PKOther(S, S->inc[t], g) < g) PKEdge(S, S->inc[t], 1.0);
    if (PKBetter(S->total, S->busy, X->bt, X->bb) && S->busy <= X->nab) PKBranch(S, X, g + 1);
    for (PetscInt t = S->ioff[g]; t < S->ioff[g + 1]; t++)
      if (PKOther(S, S->inc[t], g) < g) PKEdge(S, S->inc[t], -1.0);
    S->total = t0; /* exact anyway (sums of integers), and the largest is restored with them */
    S->busy  = b0;
    X->used[L]--;
  }
}

/* Returns found (a strictly better assignment, in S->gl) and whether the search finished */
PetscErrorCode PKSearchExhaustive(PKSearch *S, PetscInt64 maxsteps, PetscReal nat, PetscReal nab, PetscBool *found, PetscBool *finished)
{
  PKExhaustive X;
  PetscInt    *keep;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&X, sizeof(X)));
  X.maxsteps = maxsteps;
  X.bt       = nat;
  X.bb       = nab;
  X.nab      = nab;
  PetscCall(PetscMalloc1(S->B, &X.best));
  PetscCall(PetscMalloc1(S->B, &keep));
  PetscCall(PetscCalloc1(S->nl, &X.used));
  PetscCall(PetscMalloc1(S->nl, &X.eqprev));
  for (PetscInt L = 0; L < S->nl; L++) {
    X.eqprev[L] = -1;
    for (PetscInt K = L - 1; K >= 0 && X.eqprev[L] < 0; K--)
      if (S->par[S->lsw[K]] == S->par[S->lsw[L]] && S->lcap[K] == S->lcap[L]) X.eqprev[L] = K;
  }
  for (PetscInt q = 0; q < S->B; q++) keep[q] = S->gl[q];
  for (PetscInt i = 0; i < 2 * S->nsw; i++) S->load[i] = 0;
  S->total = S->busy = 0;
  PKBranch(S, &X, 0);
  *finished = (PetscBool)!X.aborted;
  *found    = X.found;
  for (PetscInt q = 0; q < S->B; q++) S->gl[q] = X.found ? X.best[q] : keep[q];
  PKEvaluate(S);
  PetscCall(PetscFree(X.best));
  PetscCall(PetscFree(keep));
  PetscCall(PetscFree(X.used));
  PetscCall(PetscFree(X.eqprev));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Heuristic: recursive bisection down the tree, then swaps */

typedef struct {
  PetscInt *koff, *kids; /* the children of each switch that hold nodes of the allocation (CSR over switches) */
  PetscInt *cap;         /* [nsw] nodes of the allocation below each switch */
  PetscInt *side;        /* [B] scratch: -1, or the part of a block during a cut */
  PetscInt *tmp, *work;  /* [B] scratch: a trial order, the merge sort's buffer */
} PKBisection;

/* The orders the bisection tries: the coordinates compared in each of the 6 sequences, ascending or descending
   (taking the first part from the low or the high end), then the index: deterministic keys for a merge sort */
static const PetscInt PKPerm[6][3] = {
  {0, 1, 2},
  {0, 2, 1},
  {1, 0, 2},
  {1, 2, 0},
  {2, 0, 1},
  {2, 1, 0}
};
#define PK_BISECT_ORDERS 12

static inline PetscBool PKBefore(const PKSearch *S, PetscInt o, PetscInt a, PetscInt b)
{
  const PetscInt *perm = PKPerm[o / 2];
  const PetscBool rev  = (PetscBool)(o % 2);
  for (PetscInt k = 0; k < 3; k++) {
    const PetscInt64 ca = S->csum[3 * a + perm[k]], cb = S->csum[3 * b + perm[k]];
    if (ca != cb) return (PetscBool)(rev ? ca > cb : ca < cb);
  }
  return (PetscBool)(rev ? a > b : a < b);
}

static void PKSortBlocks(const PKSearch *S, PetscInt o, PetscInt n, PetscInt a[], PetscInt w[])
{
  if (n < 2) return;
  PKSortBlocks(S, o, n / 2, a, w);
  PKSortBlocks(S, o, n - n / 2, a + n / 2, w);
  for (PetscInt i = 0, j = n / 2, k = 0; k < n; k++) w[k] = (j == n || (i < n / 2 && PKBefore(S, o, a[i], a[j]))) ? a[i++] : a[j++];
  for (PetscInt k = 0; k < n; k++) a[k] = w[k];
}

/* Bytes between the first c blocks of gs[0..n) and the others, both ways */
static PetscReal PKCut(const PKSearch *S, PKBisection *R, const PetscInt gs[], PetscInt n, PetscInt c)
{
  PetscReal cut = 0;
  for (PetscInt i = 0; i < n; i++) R->side[gs[i]] = i < c ? 0 : 1;
  for (PetscInt i = 0; i < c; i++)
    for (PetscInt t = S->ioff[gs[i]]; t < S->ioff[gs[i] + 1]; t++)
      if (R->side[PKOther(S, S->inc[t], gs[i])] == 1) cut += S->ew[S->inc[t]];
  for (PetscInt i = 0; i < n; i++) R->side[gs[i]] = -1;
  return cut;
}

/* The blocks gs[0..n) go below the switches kids[0..nk), as many under each as it has nodes: a single switch is
   entered (a leaf takes them all); several are halved (two runs of children, node counts as even as possible),
   the blocks sorted in the order (of PK_BISECT_ORDERS) whose first part cuts the fewest bytes from the rest: a
   plane across the longest reach where the part is a whole slab, a slab and a partial row where it is not; each
   half recursively */
static void PKBisect(PKSearch *S, PKBisection *R, PetscInt gs[], PetscInt n, const PetscInt kids[], PetscInt nk)
{
  PetscInt  h = 1, c = 0, obest = 0, cl = 0;
  PetscReal cbest = PETSC_MAX_REAL;

  if (nk == 1) {
    const PetscInt sw = kids[0];
    if (S->lord[sw] >= 0)
      for (PetscInt i = 0; i < n; i++) S->gl[gs[i]] = S->lord[sw];
    else PKBisect(S, R, gs, n, R->kids + R->koff[sw], R->koff[sw + 1] - R->koff[sw]);
    return;
  }
  for (PetscInt k = 0; k < nk - 1; k++) { /* the split of the children whose first part is nearest half the nodes */
    c += R->cap[kids[k]];
    if (k == 0 || PetscAbsInt(2 * c - n) < PetscAbsInt(2 * cl - n)) {
      h  = k + 1;
      cl = c;
    }
  }
  for (PetscInt o = 0; o < PK_BISECT_ORDERS; o++) {
    PetscReal cut;
    for (PetscInt i = 0; i < n; i++) R->tmp[i] = gs[i];
    PKSortBlocks(S, o, n, R->tmp, R->work);
    cut = PKCut(S, R, R->tmp, n, cl);
    if (cut < cbest) {
      cbest = cut;
      obest = o;
    }
  }
  PKSortBlocks(S, obest, n, gs, R->work); /* the scratch is free again before the halves are entered */
  PKBisect(S, R, gs, cl, kids, h);
  PKBisect(S, R, gs + cl, n - cl, kids + h, nk - h);
}

/* Up to this many blocks the swaps try every block under another leaf; beyond, those under the leaves of the
   block's neighbours (a swap with a block elsewhere rarely helps, and all pairs would cost B^2 per pass) */
#define PK_TOPO_SWAP_ALL 256

/* Blocks g and h exchange their leaves: the edges at either are taken out, the leaves exchanged, the edges put back
   (the edge between them, if any, once). The sum is exact after it; the largest is not (the caller rescans). */
static void PKSwap(PKSearch *S, PetscInt g, PetscInt h)
{
  PetscInt x;
  for (PetscInt u = S->ioff[g]; u < S->ioff[g + 1]; u++) PKEdge(S, S->inc[u], -1.0);
  for (PetscInt u = S->ioff[h]; u < S->ioff[h + 1]; u++)
    if (PKOther(S, S->inc[u], h) != g) PKEdge(S, S->inc[u], -1.0);
  x        = S->gl[g];
  S->gl[g] = S->gl[h];
  S->gl[h] = x;
  for (PetscInt u = S->ioff[g]; u < S->ioff[g + 1]; u++) PKEdge(S, S->inc[u], 1.0);
  for (PetscInt u = S->ioff[h]; u < S->ioff[h + 1]; u++)
    if (PKOther(S, S->inc[u], h) != g) PKEdge(S, S->inc[u], 1.0);
}

/* Pairwise swaps of blocks under different leaves while one makes the cost better (and, when constrained, no worse
   than the node-aware order's (nat, nab) on either count). Candidates for block g: the blocks under the other
   leaves (PK_TOPO_SWAP_ALL). At most maxtrials swaps are tried (the count, not the time, bounds it: the same on a busy machine). */
static PetscErrorCode PKSearchSwaps(PKSearch *S, PetscBool constrained, PetscReal nat, PetscReal nab, PetscInt64 maxtrials)
{
  PetscInt  *moff, *mem, *mpos, *stamp, *fill, *cand, nstamp = 0;
  PetscInt64 trials   = 0;
  PetscBool  improved = PETSC_TRUE;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(S->nl + 1, &moff));
  PetscCall(PetscMalloc1(S->B, &mem));
  PetscCall(PetscMalloc1(S->B, &mpos));
  PetscCall(PetscCalloc1(S->nl, &stamp));
  PetscCall(PetscCalloc1(S->nl, &fill));
  PetscCall(PetscMalloc1(S->nl, &cand));
  for (PetscInt L = 0; L < S->nl; L++) moff[L + 1] = moff[L] + S->lcap[L];
  for (PetscInt q = 0; q < S->B; q++) {
    mpos[q]      = moff[S->gl[q]] + fill[S->gl[q]]++;
    mem[mpos[q]] = q;
  }
  PKEvaluate(S);
  while (improved && trials < maxtrials) {
    improved = PETSC_FALSE;
    for (PetscInt g = 0; g < S->B && trials < maxtrials;) {
      PetscBool moved = PETSC_FALSE;
      PetscInt  nc    = 0;
      /* the leaves to try: all others for a small allocation, else those of g's neighbours */
      nstamp++;
      if (S->B <= PK_TOPO_SWAP_ALL)
        for (PetscInt L = 0; L < S->nl; L++) {
          if (L != S->gl[g]) cand[nc++] = L;
        }
      else
        for (PetscInt t = S->ioff[g]; t < S->ioff[g + 1]; t++) {
          const PetscInt Lo = S->gl[PKOther(S, S->inc[t], g)];
          if (Lo == S->gl[g] || stamp[Lo] == nstamp) continue;
          stamp[Lo]  = nstamp;
          cand[nc++] = Lo;
        }
      for (PetscInt c = 0; c < nc && !moved && trials < maxtrials; c++) {
        const PetscInt Lo = cand[c];
        for (PetscInt i = moff[Lo]; i < moff[Lo + 1] && !moved && trials < maxtrials; i++) {
          const PetscInt  h  = mem[i];
          const PetscReal t0 = S->total, b0 = S->busy;
          trials++;
          S->steps++;
          PKSwap(S, g, h);
          S->busy = S->total <= t0 ? PKBusiest(S) : PETSC_MAX_REAL; /* a larger sum is no gain: skip the scan */
          if (PKBetter(S->total, S->busy, t0, b0) && (!constrained || (S->total <= nat && S->busy <= nab))) {
            const PetscInt x = mpos[g];
            moved            = PETSC_TRUE;
            mpos[g]          = mpos[h];
            mpos[h]          = x;
            mem[mpos[g]]     = g;
            mem[mpos[h]]     = h;
          } else { /* back */
            PKSwap(S, g, h);
            S->total = t0;
            S->busy  = b0;
          }
        }
      }
      if (moved) improved = PETSC_TRUE; /* g again, under its new leaf */
      else g++;
    }
  }
  PKEvaluate(S);
  PetscCall(PetscFree(moff));
  PetscCall(PetscFree(mem));
  PetscCall(PetscFree(mpos));
  PetscCall(PetscFree(stamp));
  PetscCall(PetscFree(fill));
  PetscCall(PetscFree(cand));
  PetscFunctionReturn(0);
}

/* The children of each switch in the order of start v of the heuristic: 0 the file's, 1 by node count, largest
   first (stable), 2 the file's reversed (which part of the grid goes to which child changes the later cuts) */
#define PK_BISECT_STARTS 3
static void PKKidsOrder(PKBisection *R, const PetscInt base[], PetscInt nsw, PetscInt v)
{
  for (PetscInt sw = 0; sw < nsw; sw++) {
    const PetscInt lo = R->koff[sw], n = R->koff[sw + 1] - lo;
    for (PetscInt i = 0; i < n; i++) R->kids[lo + i] = base[lo + (v == 2 ? n - 1 - i : i)];
    if (v == 1)
      for (PetscInt i = 1; i < n; i++) /* insertion sort: few children */
        for (PetscInt j = i; j > 0 && R->cap[R->kids[lo + j]] > R->cap[R->kids[lo + j - 1]]; j--) {
          const PetscInt x    = R->kids[lo + j];
          R->kids[lo + j]     = R->kids[lo + j - 1];
          R->kids[lo + j - 1] = x;
        }
  }
}

/* The heuristic: swaps from the order in S->gl (the node-aware one, or the best an unfinished exhaustive search
   found); recursive bisection from the root with each order of the children, then swaps from there; the best of
   them no worse than the node-aware order's (nat, nab) (else S->gl is left as it came) */
PetscErrorCode PKSearchHeuristic(PKSearch *S, PetscInt root, PetscReal nat, PetscReal nab, PetscBool *found)
{
  PKBisection R;
  PetscInt   *best, *gs, *pos, *base;
  PetscReal   bt, bb;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&R, sizeof(R)));
  PetscCall(PetscMalloc1(S->B, &best));
  for (PetscInt q = 0; q < S->B; q++) best[q] = S->gl[q];
  PKEvaluate(S);
  bt = S->total;
  bb = S->busy;
  /* the children of every switch that hold nodes of the allocation, and their node counts */
  PetscCall(PetscCalloc1(S->nsw, &R.cap));
  for (PetscInt L = 0; L < S->nl; L++)
    for (PetscInt sw = S->lsw[L]; sw >= 0; sw = S->par[sw]) R.cap[sw] += S->lcap[L];
  PetscCall(PetscCalloc1(S->nsw + 1, &R.koff));
  for (PetscInt sw = 0; sw < S->nsw; sw++)
    if (R.cap[sw] && S->par[sw] >= 0) R.koff[S->par[sw] + 1]++;
  for (PetscInt sw = 0; sw < S->nsw; sw++) R.koff[sw + 1] += R.koff[sw];
  PetscCall(PetscMalloc1(R.koff[S->nsw] + 1, &R.kids));
  PetscCall(PetscMalloc1(R.koff[S->nsw] + 1, &base));
  PetscCall(PetscCalloc1(S->nsw, &pos));
  for (PetscInt sw = 0; sw < S->nsw; sw++)
    if (R.cap[sw] && S->par[sw] >= 0) base[R.koff[S->par[sw]] + pos[S->par[sw]]++] = sw;
  PetscCall(PetscMalloc1(S->B, &R.side));
  PetscCall(PetscMalloc1(S->B, &R.tmp));
  PetscCall(PetscMalloc1(S->B, &R.work));
  PetscCall(PetscMalloc1(S->B, &gs));
  for (PetscInt q = 0; q < S->B; q++) R.side[q] = -1;
  for (PetscInt v = -1; v < PK_BISECT_STARTS; v++) {
    if (v < 0) { /* from the node-aware order */
      for (PetscInt q = 0; q < S->B; q++) S->gl[q] = best[q];
    } else {
      PKKidsOrder(&R, base, S->nsw, v);
      for (PetscInt q = 0; q < S->B; q++) gs[q] = q;
      PKBisect(S, &R, gs, S->B, &root, 1);
    }
    PKEvaluate(S);
    /* constrained by the node-aware order's cost once the start satisfies it (a start that does not may still
       reach it) */
    PetscCall(PKSearchSwaps(S, (PetscBool)(S->total <= nat && S->busy <= nab), nat, nab, PK_TOPO_PLACE_STEPS));
    if (S->total <= nat && S->busy <= nab && PKBetter(S->total, S->busy, bt, bb)) {
      bt = S->total;
      bb = S->busy;
      for (PetscInt q = 0; q < S->B; q++) best[q] = S->gl[q];
    }
  }
  for (PetscInt q = 0; q < S->B; q++) S->gl[q] = best[q];
  PKEvaluate(S);
  *found = PKBetter(S->total, S->busy, nat, nab);
  PetscCall(PetscFree(best));
  PetscCall(PetscFree(base));
  PetscCall(PetscFree(gs));
  PetscCall(PetscFree(pos));
  PetscCall(PetscFree(R.cap));
  PetscCall(PetscFree(R.koff));
  PetscCall(PetscFree(R.kids));
  PetscCall(PetscFree(R.side));
  PetscCall(PetscFree(R.tmp));
  PetscCall(PetscFree(R.work));
  PetscFunctionReturn(0);
}
