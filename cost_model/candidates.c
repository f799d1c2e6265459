/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * candidates.c - candidate node sets, smallest enclosing domain first.
 *
 * One search:
 *  1. one pass over the nodes decides eligibility and the GPUs each node
 *     can give the job ("usable"), counting why nodes were left out so
 *     GP_ENOFIT can say so;
 *  2. per matching-OR alternative, prefix sums of usable GPUs / eligible
 *     nodes / whole (idle) nodes over the DFS node order give every switch
 *     subtree's totals in O(1); NVLink domains are summed from their lists;
 *  3. the domains that can hold the job are taken smallest first (NVLink
 *     domain, leaf, higher levels; tightest surplus first within a rank); a
 *     switch with a child that fits alone is skipped because its best-fit
 *     set is that child's;
 *  4. inside a domain the selection recurses into the tightest child that
 *     fits alone, else fills children with the most usable GPUs first; on
 *     the nodes of a leaf it is best fit: the node whose usable GPUs
 *     match the remaining need most closely, partially used nodes before
 *     idle ones, and only whole nodes when nothing fits.  If the tree-shaped
 *     pass misses the node-count limits, a flat best-fit pass over the whole
 *     domain (which is exact for these limits) is tried;
 *  5. GPU indices are picked per node inside the tightest NVLink island
 *     that holds them.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "candidates.h"

/* One pool slot: a candidate and the arrays it points to. */
typedef struct slot {
	gp_candidate_t cand;
	int32_t *nodes;
	uint32_t *mask;
	uint32_t hash;
} slot_t;

typedef struct domain {
	int32_t idx;     /* nvl or switch index, -1 for the cluster */
	int32_t kind;    /* gp_domain_kind_t */
	bool child_fits; /* a child switch holds the job by its totals */
} domain_t;

/*
 * Domains are sorted as one 64-bit key: rank (0 NVLink domain, 1 + level
 * for a switch, 15 the whole cluster) in bits 60-63, the surplus of usable
 * GPUs over the request in bits 32-59, child_fits in bit 31, the index in
 * bits 0-30.  Ascending keys: smallest domain, then tightest, then index.
 */
#define DOM_RANK_CLUSTER 15u

static uint64_t dom_key(uint32_t rank, int32_t surplus, bool child_fits, int32_t idx)
{
	uint64_t sp = surplus < 0 ? 0 : (uint64_t)surplus;

	if (sp > 0x0fffffffu)
		sp = 0x0fffffffu;
	return ((uint64_t)rank << 60) | (sp << 32) | ((uint64_t)child_fits << 31) |
	       (uint64_t)(idx < 0 ? 0 : idx);
}

static domain_t dom_decode(uint64_t key)
{
	domain_t d;
	uint32_t rank = (uint32_t)(key >> 60);

	d.idx = (int32_t)(key & 0x7fffffffu);
	d.child_fits = (key >> 31) & 1;
	if (rank == 0) {
		d.kind = GP_DOM_NVL;
	} else if (rank == DOM_RANK_CLUSTER) {
		d.kind = GP_DOM_CLUSTER;
		d.idx = -1;
	} else {
		d.kind = GP_DOM_SWITCH;
	}
	return d;
}

struct gp_search_ws {
	const gp_cluster_t *c;
	int kmax;
	int32_t n;
	/* per node */
	int8_t *ubase;  /* usable GPUs before the constraint, 0 = ineligible */
	int8_t *usable; /* usable for the current alternative: ubase or ualt */
	int8_t *ualt;
	uint32_t *full;  /* static: mask of the node's GPUs */
	int32_t *rack;   /* static: rack of each node (-1 none), compact for the hot loops */
	int32_t *layout; /* static: GPU layout of each node (-1 none), likewise */
	uint32_t *freem; /* free GPU mask */
	uint64_t *fmask; /* constraint feature bits */
	uint8_t *whole;  /* up and nothing allocated */
	uint8_t *excl;   /* excluded by --exclude */
	int32_t *excl_list, nexcl; /* the nodes excl marks, to clear them */
	uint32_t *taken; /* == stamp: taken by the current selection */
	int32_t *take;   /* GPUs taken on the node */
	/* prefix sums over node_order positions, n + 1; pa: what the nodes
	 * give in whole groups of the granule (pg when there is none) */
	int32_t *pg, *pn, *pw, *pa, *ptot;
	/* per switch / rack / nvl stamps and accumulators */
	uint32_t *sw_stamp, *rk_stamp, *nv_stamp;
	uint32_t *sw_ok, ok_stamp; /* == ok_stamp: the switch (or a child) yielded a set */
	/* per block (--segment): stamp, eligible nodes then quota, and a list */
	uint32_t *bk_stamp;
	int32_t *bk_cnt;
	uint64_t *bk_keys;
	int32_t *sw_acc, *nv_acc;
	int32_t *nv_gpus;  /* total GPUs of each nvl domain */
	uint8_t *nv_split; /* nvl domain straddles disconnected parts of the fabric */
	uint32_t stamp;
	/* island masks per layout */
	uint32_t (*isl)[GP_MAX_GPUS_PER_NODE];
	int *nisl;
	/* domains */
	uint64_t *dom; /* domain keys (dom_key) */
	/* scratch: bump stack of ints and keys */
	int32_t *scratch;
	size_t scratch_cap, scratch_top;
	uint64_t *keys;
	void *rtmp; /* the radix sorts' second buffer: n, domains or blocks, 8 bytes each */
	/* greedy(): per sorted key, the next (gnx) and previous (gpv, shifted
	 * by one) key not yet taken, with path compression */
	int32_t *gnx, *gpv;
	/* current selection */
	int32_t *sel;
	int32_t nsel;
	/* pool */
	slot_t *slots; /* kmax + 1 */
	slot_t **pool; /* kmax + 1 pointers; pool[npool] is the spare */
	int npool;
	gp_candidate_t *out;
	uint32_t seq;
	/* power: GPUs each rack may still give (borrowed, NULL = no limit) and
	 * what the current selection left of it (valid where rk_lstamp ==
	 * stamp) */
	const int32_t *budget;
	const double *head;
	bool multi_rail; /* some node has more than one rail */
	bool best_fit_only; /* no alternative sets (gp__search_ws_set_best_fit_only) */
	int32_t granule;    /* GPUs of the job's innermost group (gp__search_ws_set_granule) */
	int8_t atab[128];   /* u rounded down to a multiple of granule, for u < 128 */
	int32_t pass_gran;  /* the granule of the last eligibility pass */
	int32_t gran;       /* granule while a selection keeps whole groups on a node,
	                     * else 1: what a node gives is rounded down to it */
	bool prefix_ready;  /* the eligibility pass already made pg / pn / pw */
	bool dfs_identity;  /* node_order[i] == i: the passes in DFS order skip the
	                     * indirection (clusters listed in topology order) */
	int32_t last_nsel;  /* nodes of the last best-fit set made */
	int32_t *rk_left;
	uint32_t *rk_lstamp;
	/* per node, what describe() and the alternative lists read of it, in
	 * 16 bytes: gp_node_t spans several cache lines, and a 1,024-GPU set's
	 * ~170 nodes each missed in it twice per described set */
	struct node_topo { int32_t leaf, nvl, rack, ngpus; } *topo;
	/* reuse of the last eligibility pass (gp__search_ws_reuse): what each
	 * node gave the prefix sums (its usable GPUs within its rack's budget
	 * in DFS order), each rack's budget then (-1 none), the racks' nodes
	 * in DFS order (rk_first: nracks + 1 offsets into rk_nodes), and the
	 * nodes changed since (dirty, up to dirty_cap; beyond it a full pass) */
	int8_t *ueff;
	int8_t *fpre;  /* free GPUs of an eligible node before its rack's budget, -1 ineligible */
	int32_t *bsave, *rk_first, *rk_nodes;
	int32_t *dirty, ndirty, dirty_cap;
	uint32_t *dstamp, *rk_spent;
	const gp_request_t *pass_r; /* the request of the last full pass, NULL none */
	bool pass_budget;           /* that pass had rack budgets */
	bool reuse;                 /* the next search may reuse it */
	bool dirty_over;            /* more nodes changed than dirty holds */
};

/* Per-search parameters shared by the helpers. */
typedef struct ctx {
	const gp_cluster_t *c;
	const gp_state_t *s;
	const gp_request_t *r;
	gp_search_ws_t *ws;
	int32_t min_needed;     /* at least this many nodes (>= 1) */
	int32_t picked;         /* nodes in the selection */
	int32_t req_lo, req_hi; /* position range of required nodes, -1 none */
	int32_t req_nvl;        /* common nvl domain of required nodes, -2 mixed / none */
	int32_t seg;            /* --segment in effect: nodes per segment, 0 = none */
	int32_t seg_nodes;      /* the job's node count (a multiple of seg) */
	int32_t seg_gpus;       /* GPUs on each of them */
} ctx_t;

void gp__search_ws_destroy(gp_search_ws_t *ws)
{
	int i;

	if (!ws)
		return;
	free(ws->ubase);
	free(ws->ualt);
	free(ws->full);
	free(ws->rack);
	free(ws->topo);
	free(ws->ueff);
	free(ws->fpre);
	free(ws->bsave);
	free(ws->rk_first);
	free(ws->rk_nodes);
	free(ws->dirty);
	free(ws->dstamp);
	free(ws->rk_spent);
	free(ws->layout);
	free(ws->freem);
	free(ws->fmask);
	free(ws->whole);
	free(ws->excl);
	free(ws->excl_list);
	free(ws->taken);
	free(ws->take);
	free(ws->pg);
	free(ws->pa);
	free(ws->pn);
	free(ws->pw);
	free(ws->ptot);
	free(ws->sw_stamp);
	free(ws->sw_ok);
	free(ws->bk_stamp);
	free(ws->bk_cnt);
	free(ws->bk_keys);
	free(ws->rk_stamp);
	free(ws->nv_stamp);
	free(ws->sw_acc);
	free(ws->nv_acc);
	free(ws->nv_gpus);
	free(ws->nv_split);
	free(ws->rk_left);
	free(ws->rk_lstamp);
	free(ws->isl);
	free(ws->nisl);
	free(ws->dom);
	free(ws->scratch);
	free(ws->keys);
	free(ws->rtmp);
	free(ws->gnx);
	free(ws->gpv);
	free(ws->sel);
	if (ws->slots)
		for (i = 0; i <= ws->kmax; i++) {
			free(ws->slots[i].nodes);
			free(ws->slots[i].mask);
		}
	free(ws->slots);
	free(ws->pool);
	free(ws->out);
	free(ws);
}

/* The top of the connected part of the fabric holding node v: the root,
 * a child of a disconnected root, or -1 (no topology / not in the tree). */
static int32_t connected_top(const gp_cluster_t *c, int32_t v)
{
	int32_t sw = c->nodes[v].leaf;

	if (c->root < 0 || sw < 0)
		return -1;
	while (c->switches[sw].parent >= 0 && !c->switches[c->switches[sw].parent].disconnected)
		sw = c->switches[sw].parent;
	return sw;
}

/* calloc() whose pages are written now: the workspace is made once per
 * cluster, and its first search should not fault in megabytes of fresh
 * zero pages (at 65,536 nodes, a millisecond of the first decision). */
static void *zalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (p)
		memset(p, 0, n * size);
	return p;
}

int gp__search_ws_create(const gp_cluster_t *c, int kmax, gp_search_ws_t **out, gp_error_t *err)
{
	gp_search_ws_t *ws;
	size_t n, ns, i, nn1;
	int32_t l, g, p;

	*out = NULL;
	if (!c || kmax < 1 || kmax > 64)
		return gp__errorf(err, GP_EINVAL, "search workspace: k must be 1..64 (got %d)",
		                  kmax);
	ws = calloc(1, sizeof(*ws));
	if (!ws)
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	ws->c = c;
	ws->kmax = kmax;
	ws->n = c->nnodes;
	ws->gran = 1;
	gp__search_ws_set_granule(ws, 1);
	n = c->nnodes > 0 ? (size_t)c->nnodes : 1;
	ns = c->nswitches > 0 ? (size_t)c->nswitches : 1;
	nn1 = n + 1;
	ws->ubase = zalloc(n, 1);
	ws->ualt = zalloc(n, 1);
	ws->full = zalloc(n, sizeof(*ws->full));
	ws->rack = zalloc(n, sizeof(*ws->rack));
	ws->topo = zalloc(n, sizeof(*ws->topo));
	ws->ueff = zalloc(n, sizeof(*ws->ueff));
	ws->fpre = zalloc(n, sizeof(*ws->fpre));
	ws->bsave = zalloc(c->nracks > 0 ? (size_t)c->nracks : 1, sizeof(*ws->bsave));
	ws->rk_first = zalloc((size_t)c->nracks + 1, sizeof(*ws->rk_first));
	ws->rk_nodes = zalloc(n, sizeof(*ws->rk_nodes));
	/* a future state of the wait path frees a quarter of the running
	 * jobs per point (up to a fifth of the nodes at 70 % occupancy);
	 * beyond half the nodes, computed again in scattered order, a pass
	 * over all of them in order is as cheap */
	ws->dirty_cap = (int32_t)(n / 2 + 1);
	ws->dirty = zalloc((size_t)ws->dirty_cap, sizeof(*ws->dirty));
	ws->dstamp = zalloc(n, sizeof(*ws->dstamp));
	ws->rk_spent = zalloc(c->nracks > 0 ? (size_t)c->nracks : 1, sizeof(*ws->rk_spent));
	ws->layout = zalloc(n, sizeof(*ws->layout));
	ws->usable = ws->ubase;
	ws->freem = zalloc(n, sizeof(*ws->freem));
	ws->fmask = zalloc(n, sizeof(*ws->fmask));
	ws->whole = zalloc(n, 1);
	ws->excl = zalloc(n, 1);
	ws->excl_list = zalloc(n, sizeof(*ws->excl_list));
	ws->taken = zalloc(n, sizeof(*ws->taken));
	ws->take = zalloc(n, sizeof(*ws->take));
	ws->pg = zalloc(nn1, sizeof(int32_t));
	ws->pa = zalloc(nn1, sizeof(int32_t));
	ws->pn = zalloc(nn1, sizeof(int32_t));
	ws->pw = zalloc(nn1, sizeof(int32_t));
	ws->ptot = zalloc(nn1, sizeof(int32_t));
	ws->sw_stamp = zalloc(ns, sizeof(uint32_t));
	ws->sw_acc = zalloc(ns, sizeof(int32_t));
	ws->sw_ok = zalloc(ns, sizeof(uint32_t));
	ws->rk_stamp = zalloc(c->nracks > 0 ? (size_t)c->nracks : 1, sizeof(uint32_t));
	ws->bk_stamp = zalloc(c->nblocks > 0 ? (size_t)c->nblocks : 1, sizeof(uint32_t));
	ws->bk_cnt = zalloc(c->nblocks > 0 ? (size_t)c->nblocks : 1, sizeof(int32_t));
	ws->bk_keys = zalloc(c->nblocks > 0 ? (size_t)c->nblocks : 1, sizeof(uint64_t));
	ws->nv_stamp = zalloc(c->nnvl > 0 ? (size_t)c->nnvl : 1, sizeof(uint32_t));
	ws->nv_acc = zalloc(c->nnvl > 0 ? (size_t)c->nnvl : 1, sizeof(int32_t));
	ws->nv_gpus = zalloc(c->nnvl > 0 ? (size_t)c->nnvl : 1, sizeof(int32_t));
	ws->nv_split = zalloc(c->nnvl > 0 ? (size_t)c->nnvl : 1, 1);
	ws->rk_left = zalloc(c->nracks > 0 ? (size_t)c->nracks : 1, sizeof(int32_t));
	ws->rk_lstamp = zalloc(c->nracks > 0 ? (size_t)c->nracks : 1, sizeof(uint32_t));
	ws->isl = zalloc(c->nlayouts > 0 ? (size_t)c->nlayouts : 1, sizeof(*ws->isl));
	ws->nisl = zalloc(c->nlayouts > 0 ? (size_t)c->nlayouts : 1, sizeof(int));
	ws->dom = zalloc((size_t)c->nnvl + ns + 1, sizeof(*ws->dom));
	ws->scratch_cap = ns + 2 * n + 16;
	ws->scratch = zalloc(ws->scratch_cap, sizeof(int32_t));
	ws->keys = zalloc(n, sizeof(uint64_t));
	ws->rtmp = zalloc(n + ns + (size_t)c->nnvl + (size_t)c->nblocks + 1, sizeof(uint64_t));
	ws->gnx = zalloc(n + 1, sizeof(int32_t));
	ws->gpv = zalloc(n + 1, sizeof(int32_t));
	ws->sel = zalloc(n, sizeof(int32_t));
	ws->slots = zalloc((size_t)kmax + 1, sizeof(*ws->slots));
	ws->pool = zalloc((size_t)kmax + 1, sizeof(*ws->pool));
	ws->out = zalloc((size_t)kmax, sizeof(*ws->out));
	if (!ws->ubase || !ws->ualt || !ws->full || !ws->rack || !ws->topo || !ws->layout || !ws->ueff || !ws->fpre || !ws->bsave ||
	    !ws->rk_first || !ws->rk_nodes || !ws->dirty || !ws->dstamp || !ws->rk_spent ||
	    !ws->freem || !ws->fmask ||
	    !ws->whole || !ws->excl || !ws->excl_list || !ws->taken || !ws->take || !ws->pg || !ws->pa || !ws->pn || !ws->pw ||
	    !ws->ptot || !ws->sw_stamp || !ws->sw_acc || !ws->sw_ok || !ws->rk_stamp ||
	    !ws->nv_stamp || !ws->nv_acc || !ws->nv_gpus || !ws->nv_split ||
	    !ws->rk_left || !ws->rk_lstamp || !ws->isl ||
	    !ws->nisl || !ws->dom || !ws->scratch || !ws->keys || !ws->rtmp || !ws->gnx || !ws->gpv || !ws->sel || !ws->slots ||
	    !ws->pool || !ws->out || !ws->bk_stamp || !ws->bk_cnt || !ws->bk_keys)
		goto nomem;
	for (i = 0; i <= (size_t)kmax; i++) {
		ws->slots[i].nodes = calloc(n, sizeof(int32_t));
		ws->slots[i].mask = calloc(n, sizeof(uint32_t));
		if (!ws->slots[i].nodes || !ws->slots[i].mask)
			goto nomem;
	}
	/* static facts: GPU masks, partitions, GPUs per position, island
	 * masks, nvl GPU totals */
	for (i = 0; i < (size_t)c->nnodes; i++) {
		int32_t ng = c->nodes[i].ngpus;

		ws->full[i] = ng >= 32 ? 0xffffffffu : ng <= 0 ? 0 : ((1u << ng) - 1);
		if (c->nodes[i].rails > 1)
			ws->multi_rail = true;
		ws->rack[i] = c->nodes[i].rack >= 0 && c->nodes[i].rack < c->nracks ? c->nodes[i].rack : -1;
		ws->layout[i] = c->nodes[i].layout;
		ws->topo[i].leaf = c->nodes[i].leaf;
		ws->topo[i].nvl = c->nodes[i].nvl_domain;
		ws->topo[i].rack = ws->rack[i];
		ws->topo[i].ngpus = ng;
	}
	ws->dfs_identity = true;
	for (i = 0; i < (size_t)c->nnodes; i++) {
		ws->ptot[i + 1] = ws->ptot[i] + c->nodes[c->node_order[i]].ngpus;
		if (c->node_order[i] != (int32_t)i)
			ws->dfs_identity = false;
	}
	/* each rack's nodes in DFS order (the order the pass spends a rack's
	 * budget in) */
	for (i = 0; i < (size_t)c->nnodes; i++)
		if (ws->rack[i] >= 0)
			ws->rk_first[ws->rack[i] + 1]++;
	for (l = 0; l < c->nracks; l++)
		ws->rk_first[l + 1] += ws->rk_first[l];
	{
		int32_t *fill = ws->bsave; /* as a cursor per rack, before any pass */

		for (l = 0; l < c->nracks; l++)
			fill[l] = ws->rk_first[l];
		for (i = 0; i < (size_t)c->nnodes; i++) {
			int32_t v = c->node_order[i];

			if (ws->rack[v] >= 0)
				ws->rk_nodes[fill[ws->rack[v]]++] = v;
		}
	}
	for (l = 0; l < c->nlayouts; l++) {
		const gp_gres_layout_t *lay = &c->layouts[l];
		int nis = lay->nislands > 0 ? lay->nislands : 1;

		if (nis > GP_MAX_GPUS_PER_NODE)
			nis = GP_MAX_GPUS_PER_NODE;
		ws->nisl[l] = nis;
		for (g = 0; g < lay->ngpus && g < GP_MAX_GPUS_PER_NODE; g++) {
			int k = lay->nislands > 0 ? lay->island[g] : 0;

			if (k >= nis)
				k = nis - 1;
			ws->isl[l][k] |= 1u << g;
		}
	}
	for (l = 0; l < c->nnvl; l++) {
		int32_t top0 = -2;

		for (p = 0; p < c->nvl[l].nnodes; p++) {
			int32_t v = c->nvl[l].nodes[p], top = connected_top(c, v);

			ws->nv_gpus[l] += c->nodes[v].ngpus;
			/* Slurm's tree topology cannot allocate across the
			 * disconnected parts, NVLink or not */
			if (p && top != top0)
				ws->nv_split[l] = 1;
			top0 = top;
		}
	}
	*out = ws;
	return GP_OK;
nomem:
	gp__search_ws_destroy(ws);
	return gp__errorf(err, GP_ENOMEM, "out of memory");
}

/* ---- helpers ------------------------------------------------------------ */

static int32_t *scratch_push(gp_search_ws_t *ws, size_t n)
{
	int32_t *p;

	if (ws->scratch_top + n > ws->scratch_cap)
		return NULL;
	p = ws->scratch + ws->scratch_top;
	ws->scratch_top += n;
	return p;
}

static int cmp_cand(const void *a, const void *b)
{
	const gp_candidate_t *x = a, *y = b;

	if (x->score != y->score)
		return x->score < y->score ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * In-place sort that never allocates (glibc's qsort may malloc a merge
 * buffer): insertion sort for short arrays, heapsort otherwise.  Every
 * comparator here is a total order, so the result is deterministic.
 */
static void swap_bytes(char *a, char *b, size_t size)
{
	char t;

	while (size--) {
		t = *a;
		*a++ = *b;
		*b++ = t;
	}
}

static void sift(char *base, size_t root, size_t n, size_t size,
                 int (*cmp)(const void *, const void *))
{
	size_t child;

	while ((child = 2 * root + 1) < n) {
		if (child + 1 < n && cmp(base + child * size, base + (child + 1) * size) < 0)
			child++;
		if (cmp(base + root * size, base + child * size) >= 0)
			return;
		swap_bytes(base + root * size, base + child * size, size);
		root = child;
	}
}

static void sort_any(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	char *base = v;
	size_t i, j;

	if (n < 2)
		return;
	if (n <= 24) {
		for (i = 1; i < n; i++)
			for (j = i; j > 0 && cmp(base + (j - 1) * size, base + j * size) > 0; j--)
				swap_bytes(base + (j - 1) * size, base + j * size, size);
		return;
	}
	for (i = n / 2; i-- > 0;)
		sift(base, i, n, size, cmp);
	for (i = n - 1; i > 0; i--) {
		swap_bytes(base, base + i * size, size);
		sift(base, 0, i, size, cmp);
	}
}

/* Typed variants of the same for the hot arrays (no callback). */
#define DEFINE_SORT(NAME, T)                                                                       \
	static void NAME(T *a, size_t n)                                                           \
	{                                                                                          \
		size_t i, j, root, child;                                                          \
		T t;                                                                               \
                                                                                                   \
		if (n <= 24) {                                                                     \
			for (i = 1; i < n; i++) {                                                  \
				t = a[i];                                                          \
				for (j = i; j > 0 && a[j - 1] > t; j--)                            \
					a[j] = a[j - 1];                                           \
				a[j] = t;                                                          \
			}                                                                          \
			return;                                                                    \
		}                                                                                  \
		for (i = n / 2; i-- > 0;)                                                          \
			for (root = i; (child = 2 * root + 1) < n; root = child) {                 \
				if (child + 1 < n && a[child] < a[child + 1])                      \
					child++;                                                   \
				if (a[root] >= a[child])                                           \
					break;                                                     \
				t = a[root];                                                       \
				a[root] = a[child];                                                \
				a[child] = t;                                                      \
			}                                                                          \
		for (i = n - 1; i > 0; i--) {                                                      \
			t = a[0];                                                                  \
			a[0] = a[i];                                                               \
			a[i] = t;                                                                  \
			for (root = 0; (child = 2 * root + 1) < i; root = child) {                 \
				if (child + 1 < i && a[child] < a[child + 1])                      \
					child++;                                                   \
				if (a[root] >= a[child])                                           \
					break;                                                     \
				t = a[root];                                                       \
				a[root] = a[child];                                                \
				a[child] = t;                                                      \
			}                                                                          \
		}                                                                                  \
	}

DEFINE_SORT(heap_u64, uint64_t)
DEFINE_SORT(heap_i32, int32_t)

/*
 * Radix sort (least significant byte first, bytes that no two keys differ
 * in skipped) for arrays longer than RADIX_MIN, through tmp (n elements):
 * a 1,024-GPU set's ~170 nodes and a domain's hundreds of node keys took
 * the heap sort several microseconds each, many times per decision.  The
 * keys are integers, so the sorted order is the same whichever sort makes
 * it.
 */
#define RADIX_MIN 48
#define DEFINE_RADIX(NAME, HEAP, T, U)                                                             \
	static void NAME(T *a, size_t n, void *tmp)                                                \
	{                                                                                          \
		U or_ = 0, and_ = (U)~(U)0, diff, *src = (U *)a, *dst = (U *)tmp, *sw;                \
		size_t i, cnt[256];                                                                \
		unsigned sh;                                                                       \
                                                                                                   \
		if (n <= RADIX_MIN || !tmp) {                                                      \
			HEAP(a, n);                                                                \
			return;                                                                    \
		}                                                                                  \
		for (i = 0; i < n; i++) {                                                          \
			or_ |= src[i];                                                             \
			and_ &= src[i];                                                            \
		}                                                                                  \
		diff = or_ ^ and_;                                                                 \
		for (sh = 0; sh < 8 * sizeof(U); sh += 8) {                                        \
			size_t sum = 0, c;                                                         \
                                                                                                   \
			if (!((diff >> sh) & 0xff))                                                \
				continue;                                                          \
			memset(cnt, 0, sizeof(cnt));                                               \
			for (i = 0; i < n; i++)                                                    \
				cnt[(src[i] >> sh) & 0xff]++;                                      \
			for (i = 0; i < 256; i++) {                                                \
				c = cnt[i];                                                        \
				cnt[i] = sum;                                                      \
				sum += c;                                                          \
			}                                                                          \
			for (i = 0; i < n; i++)                                                    \
				dst[cnt[(src[i] >> sh) & 0xff]++] = src[i];                        \
			sw = src;                                                                  \
			src = dst;                                                                 \
			dst = sw;                                                                  \
		}                                                                                  \
		if (src != (U *)a)                                                                 \
			memcpy(a, src, n * sizeof(U));                                             \
	}

/* node indices are never negative: as unsigned they sort the same */
DEFINE_RADIX(radix_u64, heap_u64, uint64_t, uint64_t)
DEFINE_RADIX(radix_i32, heap_i32, int32_t, uint32_t)

/* Set bits of every byte value. */
#define PC2(n) n, n + 1, n + 1, n + 2
#define PC4(n) PC2(n), PC2(n + 1), PC2(n + 1), PC2(n + 2)
#define PC6(n) PC4(n), PC4(n + 1), PC4(n + 1), PC4(n + 2)
static const uint8_t pc_byte[256] = { PC6(0), PC6(1), PC6(1), PC6(2) };

/* Population count without relying on a popcnt instruction (the default
 * x86-64 target lacks it and the builtin becomes a library call): a table
 * for the masks of up to 8 GPUs, most nodes' (3 operations per node of the
 * eligibility pass instead of 12), else the bit count in parallel. */
static inline int pc32(uint32_t m)
{
	if (m < 256)
		return pc_byte[m];
	m = m - ((m >> 1) & 0x55555555u);
	m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
	return (int)((((m + (m >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24);
}

void gp__search_ws_set_best_fit_only(gp_search_ws_t *ws, bool on)
{
	if (ws)
		ws->best_fit_only = on;
}

void gp__search_ws_set_granule(gp_search_ws_t *ws, int32_t gpus)
{
	int u;

	if (!ws)
		return;
	gpus = gpus > 1 && gpus <= 64 ? gpus : 1;
	if (ws->granule == gpus)
		return; /* the table is this granule's already */
	ws->granule = gpus;
	for (u = 0; u < 128; u++)
		ws->atab[u] = (int8_t)(u - u % ws->granule);
}

void gp__search_ws_reuse(gp_search_ws_t *ws, bool on)
{
	if (!ws)
		return;
	ws->reuse = on;
	if (!on) {
		ws->ndirty = 0;
		ws->dirty_over = false;
	}
}

void gp__search_ws_changed(gp_search_ws_t *ws, int32_t node)
{
	if (!ws || !ws->reuse || node < 0 || node >= ws->n || ws->dirty_over)
		return;
	if (ws->ndirty == ws->dirty_cap) {
		ws->dirty_over = true;
		return;
	}
	ws->dirty[ws->ndirty++] = node;
}

void gp__search_ws_set_rack_budget(gp_search_ws_t *ws, const int32_t *budget,
                                   const double *headroom)
{
	if (ws) {
		ws->budget = budget;
		ws->head = budget ? headroom : NULL;
	}
}

/* GPUs node v's rack still lets the current selection take (INT32_MAX:
 * no power limit). */
static inline int32_t rack_left(const gp_search_ws_t *ws, int32_t v)
{
	int32_t r;

	if (!ws->budget || (r = ws->rack[v]) < 0 || ws->budget[r] < 0)
		return INT32_MAX;
	return ws->rk_lstamp[r] == ws->stamp ? ws->rk_left[r] : ws->budget[r];
}

/* What node v can give the current selection: its usable GPUs within its
 * rack's remaining power budget. */
static inline int32_t eff_usable(const gp_search_ws_t *ws, int32_t v)
{
	int32_t u = ws->usable[v], l = rack_left(ws, v);

	u = u < l ? u : l;
	return ws->gran > 1 && u > 0 ? ws->atab[u] : u; /* u <= usable < 128 */
}

/* Sort key of a node for best fit: usable, then free GPUs (an exact match
 * first), then partially used before idle, then node index. */
static uint64_t node_key(const gp_search_ws_t *ws, int32_t i)
{
	/* usable >= 0 here: greedy_list() reads only eligible nodes' keys */
	uint64_t u = (uint64_t)(ws->gran > 1 ? ws->atab[ws->usable[i] & 127] : ws->usable[i]);
	uint64_t f = (uint64_t)pc32(ws->freem[i]);

	return (u << 37) | (f << 32) | ((uint64_t)ws->whole[i] << 31) | (uint64_t)i;
}

#define KEY_NODE(k) ((int32_t)((k)&0x7fffffffu))
#define KEY_U(k)    ((int32_t)((k) >> 37))

static void take_node(ctx_t *x, int32_t i, int32_t t)
{
	gp_search_ws_t *ws = x->ws;

	ws->taken[i] = ws->stamp;
	ws->take[i] = t;
	if (ws->budget) {
		int32_t r = ws->rack[i], l = rack_left(ws, i);

		if (r >= 0 && l != INT32_MAX) {
			ws->rk_left[r] = l - t;
			ws->rk_lstamp[r] = ws->stamp;
		}
	}
	ws->sel[ws->nsel++] = i;
	x->picked++;
}

/* Largest number of GPUs the next node may take given the nodes still
 * needed after it. */
static int32_t next_cap(const ctx_t *x, int32_t R)
{
	int32_t left = x->min_needed - x->picked - 1;

	if (left < 0)
		left = 0;
	return R - left > 1 ? R - left : 1;
}

/* Take node v for as many of the R GPUs still wanted as it gives, the
 * request allows per node and the nodes still needed leave; returns them. */
static int32_t take_upto(ctx_t *x, int32_t v, int32_t R)
{
	const gp_request_t *r = x->r;
	int32_t cap = r->gpus_per_node ? r->gpus_per_node : next_cap(x, R);
	int32_t t = eff_usable(x->ws, v);

	if (t > cap)
		t = cap;
	if (t > R)
		t = R;
	take_node(x, v, t);
	return t;
}

/*
 * Best fit over keys[0..n) (sorted): takes up to R GPUs under the node
 * limits and returns how many it took.
 */
/* The first index >= j (nx) or, with nx the shifted previous links, the
 * last index <= j - 1 + 1 whose key is not taken: the root of j's chain,
 * every link on the way pointed at it. */
static int32_t untaken(int32_t *nx, int32_t j)
{
	int32_t r = j, t;

	while (nx[r] != r)
		r = nx[r];
	while (nx[j] != r) {
		t = nx[j];
		nx[j] = r;
		j = t;
	}
	return r;
}

/* Key j leaves both links of the keys not taken. */
static inline void unlink_key(int32_t *nx, int32_t *pv, int32_t j)
{
	nx[j] = j + 1;
	pv[j + 1] = j;
}

/* The first of keys[0..hi) (sorted) whose usable GPUs are at least u. */
static int32_t first_of_size(const uint64_t *keys, int32_t hi, int32_t u)
{
	int32_t lo = 0, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (KEY_U(keys[mid]) < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int32_t greedy(ctx_t *x, uint64_t *keys, int32_t n, int32_t R)
{
	gp_search_ws_t *ws = x->ws;
	const gp_request_t *r = x->r;
	int32_t *nx = ws->gnx, *pv = ws->gpv; /* pv[j + 1]: key j or before */
	int32_t got = 0, j;

	radix_u64(keys, (size_t)n, ws->rtmp);
	/* the keys not taken, linked both ways: every pick skips the nodes
	 * already taken in O(1) amortized instead of walking over them (a
	 * 1,024-GPU set of 170 partly free nodes walked some 10^5 keys) */
	for (j = 0; j < n; j++) {
		bool t = ws->taken[KEY_NODE(keys[j])] == ws->stamp;

		nx[j] = t ? j + 1 : j;
		pv[j + 1] = t ? j : j + 1;
	}
	nx[n] = n;
	pv[0] = 0;
	while (R > 0) {
		int32_t cap, want, lo, u;
		bool last;

		if (r->max_nodes && x->picked >= r->max_nodes)
			break;
		last = r->max_nodes && x->picked == r->max_nodes - 1;
		cap = next_cap(x, R);
		if (r->gpus_per_node)
			cap = r->gpus_per_node;
		want = last ? R : cap;
		if (cap > R)
			cap = R;
		/* smallest usable >= want */
		lo = first_of_size(keys, n, want);
		/* a node whose rack has no power left for one GPU has none for
		 * the rest of this selection (budgets only shrink as nodes are
		 * taken): unlinked like a taken one, not walked over again */
		for (j = untaken(nx, lo); j < n && ws->budget; j = untaken(nx, j + 1)) {
			int32_t e = eff_usable(ws, KEY_NODE(keys[j]));

			if (e >= want)
				break;
			if (e <= 0)
				unlink_key(nx, pv, j);
		}
		if (j == n) {
			if (last || r->gpus_per_node)
				break;
			/* none fits: the largest, partially used / lowest index first */
			for (j = untaken(pv, n) - 1;
			     j >= 0 && ws->budget && eff_usable(ws, KEY_NODE(keys[j])) <= 0;
			     j = untaken(pv, j) - 1)
				unlink_key(nx, pv, j);
			if (j < 0)
				break;
			u = KEY_U(keys[j]);
			/* the first key of that size, then the first not taken
			 * with power for a GPU (j itself is one) */
			for (j = untaken(nx, first_of_size(keys, j, u));
			     ws->budget && eff_usable(ws, KEY_NODE(keys[j])) <= 0;
			     j = untaken(nx, j + 1))
				unlink_key(nx, pv, j);
		}
		u = ws->budget ? eff_usable(ws, KEY_NODE(keys[j])) : KEY_U(keys[j]);
		if (u > cap)
			u = cap;
		take_node(x, KEY_NODE(keys[j]), u);
		unlink_key(nx, pv, j);
		R -= u;
		got += u;
	}
	return got;
}

/* Greedy over a node list (eligible, not yet taken). */
static int32_t greedy_list(ctx_t *x, const int32_t *nodes, int32_t nn, bool by_pos, int32_t R)
{
	gp_search_ws_t *ws = x->ws;
	const uint32_t *restrict taken = ws->taken;
	const int32_t *restrict order = by_pos && !ws->dfs_identity ? x->c->node_order : NULL;
	uint64_t *restrict keys = ws->keys;
	uint32_t stamp = ws->stamp;
	int32_t i, n = 0, v;

	/* every node's key is written and kept when the node is eligible and
	 * free: no branch per node (half the nodes of a busy domain are
	 * neither), over a domain of hundreds of nodes per set */
	for (i = 0; i < nn; i++) {
		v = !by_pos ? nodes[i] : order ? order[nodes[0] + i] : nodes[0] + i;
		keys[n] = node_key(ws, v);
		n += (KEY_U(keys[n]) > 0) & (taken[v] != stamp);
	}
	if (!n)
		return 0;
	return greedy(x, ws->keys, n, R);
}

/*
 * Balanced selection over a node list: the fewest eligible nodes with the
 * most usable GPUs that hold R (partially used nodes first among equals),
 * then R spread over them as evenly as their usable GPUs allow.  A node that
 * carries a small remainder (one GPU of eight) puts that rank's share of
 * every collective on one NIC, which a balanced split avoids; the scorer
 * decides between this set and the best-fit one.  Returns GPUs taken.
 */
static int32_t balanced_list(ctx_t *x, const int32_t *nodes, int32_t nn, bool by_pos, int32_t R)
{
	gp_search_ws_t *ws = x->ws;
	const gp_request_t *r = x->r;
	int32_t i, n = 0, v, m = 0, sum = 0, got = 0, need_nodes;

	/* without a branch per node, as greedy_list() */
	for (i = 0; i < nn; i++) {
		int32_t e;

		v = by_pos ? x->c->node_order[nodes[0] + i] : nodes[i];
		e = eff_usable(ws, v);
		ws->keys[n] = ((uint64_t)(uint32_t)e << 37) | ((uint64_t)!ws->whole[v] << 36) |
		              (uint64_t)(0x7fffffff - v);
		n += (e > 0) & (ws->taken[v] != ws->stamp);
	}
	if (!n)
		return 0;
	radix_u64(ws->keys, (size_t)n, ws->rtmp);
	/* the largest nodes, from the end of the ascending keys */
	need_nodes = x->min_needed - x->picked;
	while (m < n && (sum < R || m < need_nodes)) {
		sum += (int32_t)(ws->keys[n - 1 - m] >> 37);
		m++;
	}
	if (sum < R || (r->max_nodes && x->picked + m > r->max_nodes))
		return 0;
	/* water-fill the m chosen nodes, smallest first */
	for (i = n - m; i < n; i++) {
		int32_t left = n - i, u = (int32_t)(ws->keys[i] >> 37);
		int32_t share = (R - got + left - 1) / left, t = u < share ? u : share;

		v = 0x7fffffff - (int32_t)(ws->keys[i] & 0x7fffffffu);
		if (t > eff_usable(ws, v))
			t = eff_usable(ws, v); /* another node of its rack took the power */
		if (t <= 0)
			continue;
		take_node(x, v, t);
		got += t;
	}
	return got;
}

/*
 * Power-spread selection over a node list, when racks have power budgets:
 * the racks with the most budget first, one node per rack per round (the
 * tightest fit inside a rack), so the job's draw lands where there is
 * headroom instead of filling one rack (the score's power term is the
 * largest share of a rack's headroom the job takes).  Returns GPUs taken.
 */
static int32_t spread_list(ctx_t *x, const int32_t *nodes, int32_t nn, bool by_pos, int32_t R)
{
	gp_search_ws_t *ws = x->ws;
	const gp_request_t *r = x->r;
	int32_t i, n = 0, v, got = 0, need = r->gpus_per_node ? r->gpus_per_node : 1;
	bool progress = true;

	double hmax = 0;

	for (i = 0; ws->head && i < nn; i++) {
		int32_t rk;

		v = by_pos ? x->c->node_order[nodes[0] + i] : nodes[i];
		rk = ws->rack[v];
		if (rk >= 0 && ws->head[rk] < INFINITY && ws->head[rk] > hmax)
			hmax = ws->head[rk];
	}
	for (i = 0; i < nn; i++) {
		int32_t rk, b, u;

		v = by_pos ? x->c->node_order[nodes[0] + i] : nodes[i];
		u = eff_usable(ws, v);
		if (u < need || ws->taken[v] == ws->stamp)
			continue;
		rk = ws->rack[v];
		if (rk < 0 || ws->budget[rk] < 0)
			b = 0xffff;
		else if (ws->head && hmax > 0)
			b = (int32_t)(0xfffe * fmin(1.0, fmax(0.0, ws->head[rk] / hmax)));
		else
			b = ws->budget[rk];
		if (b > 0xffff)
			b = 0xffff;
		/* budget descending, rack, usable ascending (tightest), node */
		ws->keys[n++] = ((uint64_t)(0xffff - b) << 48) |
		                ((uint64_t)((uint32_t)(rk < 0 ? 0xffff : rk) & 0xffff) << 32) |
		                ((uint64_t)(u & 0x1f) << 27) | (uint64_t)(v & 0x7ffffff);
	}
	if (!n)
		return 0;
	radix_u64(ws->keys, (size_t)n, ws->rtmp);
	while (R > 0 && progress) {
		uint64_t last_rack = UINT64_MAX;

		progress = false;
		for (i = 0; i < n && R > 0; i++) {
			uint64_t rack = (ws->keys[i] >> 32) & 0xffffffffu;
			int32_t t;

			if (rack == last_rack)
				continue;
			if (r->max_nodes && x->picked >= r->max_nodes)
				return got;
			v = (int32_t)(ws->keys[i] & 0x7ffffff);
			if (ws->taken[v] == ws->stamp || eff_usable(ws, v) < need)
				continue;
			t = take_upto(x, v, R);
			R -= t;
			got += t;
			last_rack = rack;
			progress = true;
		}
	}
	return got;
}

/* Take nodes in the order of keys[0..n) (node index in the low 27 bits)
 * until R is met; returns GPUs taken. */
static int32_t take_in_order(ctx_t *x, const uint64_t *keys, int32_t n, int32_t R)
{
	gp_search_ws_t *ws = x->ws;
	const gp_request_t *r = x->r;
	int32_t i, got = 0, need = r->gpus_per_node ? r->gpus_per_node : 1;

	for (i = 0; i < n && R > 0; i++) {
		int32_t v = (int32_t)(keys[i] & 0x7ffffff), t;

		if (r->max_nodes && x->picked >= r->max_nodes)
			break;
		if (ws->taken[v] == ws->stamp || eff_usable(ws, v) < need)
			continue;
		t = take_upto(x, v, R);
		R -= t;
		got += t;
	}
	return got;
}

static uint32_t choose_gpus(const gp_search_ws_t *ws, int32_t i, uint32_t f, int32_t t);

/*
 * NVLink-domain selection over a node list: the domains with the most
 * usable GPUs first (their nodes with the most usable GPUs first), so the
 * job fills the fewest cross-node NVLink domains; nodes outside any domain
 * come last.  Returns GPUs taken.
 */
static int32_t nvl_list(ctx_t *x, const int32_t *nodes, int32_t nn, bool by_pos, int32_t R)
{
	gp_search_ws_t *ws = x->ws;
	const gp_cluster_t *c = x->c;
	int32_t i, n = 0, v, need = x->r->gpus_per_node ? x->r->gpus_per_node : 1;

	for (i = 0; i < nn; i++) {
		int32_t d, u;

		v = by_pos ? c->node_order[nodes[0] + i] : nodes[i];
		d = ws->topo[v].nvl;
		u = eff_usable(ws, v);
		if (d < 0 || u < need || ws->taken[v] == ws->stamp)
			continue;
		if (ws->nv_stamp[d] != ws->stamp) {
			ws->nv_stamp[d] = ws->stamp;
			ws->nv_acc[d] = 0;
		}
		ws->nv_acc[d] += u;
	}
	for (i = 0; i < nn; i++) {
		int32_t d, u, g;

		v = by_pos ? c->node_order[nodes[0] + i] : nodes[i];
		d = ws->topo[v].nvl;
		u = eff_usable(ws, v);
		if (u < need || ws->taken[v] == ws->stamp)
			continue;
		g = d >= 0 && ws->nv_stamp[d] == ws->stamp ? ws->nv_acc[d] : 0;
		if (g > 0xffff)
			g = 0xffff;
		/* domain GPUs descending, domain, usable descending, node */
		ws->keys[n++] = ((uint64_t)(0xffff - g) << 48) |
		                ((uint64_t)((uint32_t)(d < 0 ? 0xffff : d) & 0xffff) << 32) |
		                ((uint64_t)(31 - (u & 0x1f)) << 27) | (uint64_t)(v & 0x7ffffff);
	}
	if (!n)
		return 0;
	radix_u64(ws->keys, (size_t)n, ws->rtmp);
	return take_in_order(x, ws->keys, n, R);
}

/*
 * Rail-aligned selection over a node list: the GPU indices each node
 * would give the job (choose_gpus) define its rails; nodes of the most
 * common index set come first (the leaves holding most of it first), so cross-node
 * traffic stays on one rail per rank instead of being forwarded over
 * NVLink to another NIC and up through the spine.  Returns GPUs taken.
 */
static int32_t rail_list(ctx_t *x, const int32_t *nodes, int32_t nn, bool by_pos, int32_t R)
{
	gp_search_ws_t *ws = x->ws;
	const gp_cluster_t *c = x->c;
	const gp_request_t *r = x->r;
	int32_t i, j, n = 0, v, need = r->gpus_per_node ? r->gpus_per_node : 1;

	for (i = 0; i < nn; i++) {
		int32_t u, t, lf;
		uint32_t m;

		v = by_pos ? c->node_order[nodes[0] + i] : nodes[i];
		u = eff_usable(ws, v);
		if (u < need || ws->taken[v] == ws->stamp)
			continue;
		t = r->gpus_per_node ? r->gpus_per_node : (u < R ? u : R);
		m = choose_gpus(ws, v, ws->freem[v], t) & 0xffff;
		lf = ws->topo[v].leaf;
		ws->keys[n++] = ((uint64_t)m << 47) | ((uint64_t)((uint32_t)lf & 0xfffff) << 27) |
		                (uint64_t)(v & 0x7ffffff);
	}
	if (!n)
		return 0;
	radix_u64(ws->keys, (size_t)n, ws->rtmp);
	/* the size of each index set, and of its part under each leaf; then
	 * the largest sets first and inside one the leaves holding most of it
	 * (nodes of one leaf stay together: ties go by node index) */
	for (i = 0; i < n; i = j) {
		uint64_t m = ws->keys[i] >> 47, cnt;
		int32_t k, l;

		for (j = i; j < n && (ws->keys[j] >> 47) == m; j++)
			;
		cnt = (uint64_t)(j - i) > 0xffff ? 0xffff : (uint64_t)(j - i);
		for (k = i; k < j; k = l) {
			uint64_t leaf = (ws->keys[k] >> 27) & 0xfffff, lc;

			for (l = k; l < j && ((ws->keys[l] >> 27) & 0xfffff) == leaf; l++)
				;
			lc = (uint64_t)(l - k) > 31 ? 31 : (uint64_t)(l - k);
			for (; k < l; k++)
				ws->keys[k] = ((0xffff - cnt) << 48) | (m << 32) | ((31 - lc) << 27) |
				              (ws->keys[k] & 0x7ffffff);
		}
	}
	radix_u64(ws->keys, (size_t)n, ws->rtmp);
	return take_in_order(x, ws->keys, n, R);
}

static int32_t sw_gpus(const gp_search_ws_t *ws, const gp_switch_t *w)
{
	const int32_t *p = ws->gran > 1 ? ws->pa : ws->pg;

	return p[w->first + w->count] - p[w->first];
}

static int32_t sw_nodes(const gp_search_ws_t *ws, const gp_switch_t *w)
{
	return ws->pn[w->first + w->count] - ws->pn[w->first];
}

/* Does a domain with g usable GPUs on n eligible nodes hold the job? */
static bool fits(const ctx_t *x, int32_t g, int32_t n)
{
	const gp_request_t *r = x->r;

	if (g < r->gpus || n < x->min_needed)
		return false;
	if (r->gpus_per_node && n < r->gpus / r->gpus_per_node)
		return false;
	return true;
}

static bool sw_has_required(const ctx_t *x, const gp_switch_t *w)
{
	if (x->req_lo < 0)
		return true;
	return x->req_lo >= w->first && x->req_hi < w->first + w->count;
}

/* Tree-shaped selection inside switch sw; returns GPUs taken. */
static int32_t pick_switch(ctx_t *x, int32_t sw, int32_t R)
{
	gp_search_ws_t *ws = x->ws;
	const gp_switch_t *w = &x->c->switches[sw];
	int32_t got = 0, i, j, best = -1, bestg = 0, *order, g;
	size_t mark;

	if (R <= 0)
		return 0;
	if (w->nchildren == 0)
		return greedy_list(x, w->nodes, w->nnodes, false, R);
	/* the tightest child that holds the rest alone */
	for (i = 0; i < w->nchildren; i++) {
		const gp_switch_t *ch = &x->c->switches[w->children[i]];

		g = sw_gpus(ws, ch);
		if (g >= R && sw_nodes(ws, ch) >= x->min_needed - x->picked &&
		    (best < 0 || g < bestg)) {
			best = w->children[i];
			bestg = g;
		}
	}
	if (best >= 0) {
		got = pick_switch(x, best, R);
		R -= got;
	}
	if (R > 0) {
		/* fill from the children with the most usable GPUs */
		mark = ws->scratch_top;
		order = scratch_push(ws, (size_t)w->nchildren);
		if (!order)
			return got;
		for (i = 0; i < w->nchildren; i++) {
			int32_t ci = w->children[i];

			g = sw_gpus(ws, &x->c->switches[ci]);
			/* insertion by descending usable, then index */
			for (j = i; j > 0; j--) {
				int32_t pj = order[j - 1];
				int32_t gj = sw_gpus(ws, &x->c->switches[pj]);

				if (gj > g || (gj == g && pj < ci))
					break;
				order[j] = pj;
			}
			order[j] = ci;
		}
		for (i = 0; i < w->nchildren && R > 0; i++) {
			if (order[i] == best)
				continue;
			g = pick_switch(x, order[i], R);
			R -= g;
			got += g;
		}
		ws->scratch_top = mark;
	}
	if (R > 0 && w->nnodes > 0)
		got += greedy_list(x, w->nodes, w->nnodes, false, R);
	return got;
}

/* A new mark value for taken[] and the per-switch / rack / nvl marks; on
 * wrap-around every mark is cleared so an old value never matches. */
static void next_stamp(gp_search_ws_t *ws)
{
	const gp_cluster_t *c = ws->c;

	if (++ws->stamp != 0)
		return;
	memset(ws->taken, 0, (size_t)ws->n * sizeof(*ws->taken));
	memset(ws->sw_stamp, 0, (size_t)(c->nswitches > 0 ? c->nswitches : 1) * sizeof(uint32_t));
	memset(ws->rk_stamp, 0, (size_t)(c->nracks > 0 ? c->nracks : 1) * sizeof(uint32_t));
	memset(ws->nv_stamp, 0, (size_t)(c->nnvl > 0 ? c->nnvl : 1) * sizeof(uint32_t));
	memset(ws->bk_stamp, 0, (size_t)(c->nblocks > 0 ? c->nblocks : 1) * sizeof(uint32_t));
	memset(ws->rk_lstamp, 0, (size_t)(c->nracks > 0 ? c->nracks : 1) * sizeof(uint32_t));
	memset(ws->rk_spent, 0, (size_t)(c->nracks > 0 ? c->nracks : 1) * sizeof(uint32_t));
	memset(ws->dstamp, 0, (size_t)ws->n * sizeof(uint32_t));
	ws->stamp = 2; /* describe() marks counted objects with stamp - 1 */
}

/* Start a selection: a new stamp and the required nodes taken first. */
static int32_t begin_selection(ctx_t *x, int32_t *R)
{
	gp_search_ws_t *ws = x->ws;
	const gp_request_t *r = x->r;
	int32_t i, v, t;

	next_stamp(ws);
	ws->nsel = 0;
	x->picked = 0;
	*R = r->gpus;
	for (i = 0; i < r->nrequired; i++) {
		v = r->required[i];
		t = r->gpus_per_node ? r->gpus_per_node : next_cap(x, *R);
		if (t > eff_usable(ws, v))
			t = eff_usable(ws, v);
		if (t > *R)
			t = *R;
		if (t <= 0)
			return -1;
		take_node(x, v, t);
		*R -= t;
	}
	return 0;
}

static bool selection_ok(const ctx_t *x, int32_t R)
{
	const gp_request_t *r = x->r;

	return R == 0 && x->picked >= x->min_needed && (!r->max_nodes || x->picked <= r->max_nodes);
}

/* Choose t GPUs of free mask f on node i: inside the tightest island that
 * holds them, else from the islands with the most free GPUs first. */
static uint32_t choose_gpus(const gp_search_ws_t *ws, int32_t i, uint32_t f, int32_t t)
{
	int32_t lay = ws->layout[i]; /* compact copies, not the node's large struct */
	uint32_t m = 0, im;
	int nis, k, best = -1, bestn = 0, n;
	uint32_t one[1];
	const uint32_t *isl;

	if (lay >= 0 && ws->nisl[lay] > 0) {
		isl = ws->isl[lay];
		nis = ws->nisl[lay];
	} else {
		one[0] = ws->full[i];
		isl = one;
		nis = 1;
	}
	for (k = 0; k < nis; k++) {
		n = pc32(f & isl[k]);
		if (n >= t && (best < 0 || n < bestn)) {
			best = k;
			bestn = n;
		}
	}
	if (best >= 0) {
		im = f & isl[best];
		while (t-- > 0) {
			m |= im & -im;
			im &= im - 1;
		}
		return m;
	}
	while (t > 0) {
		best = -1;
		bestn = 0;
		for (k = 0; k < nis; k++) {
			n = pc32(f & isl[k] & ~m);
			if (n > bestn) {
				best = k;
				bestn = n;
			}
		}
		if (best < 0)
			break;
		im = f & isl[best] & ~m;
		while (t > 0 && im) {
			m |= im & -im;
			im &= im - 1;
			t--;
		}
	}
	/* GPUs outside any island (should not happen) */
	im = f & ~m;
	while (t-- > 0 && im) {
		m |= im & -im;
		im &= im - 1;
	}
	return m;
}

static int islands_of(const gp_search_ws_t *ws, int32_t i, uint32_t m)
{
	int32_t lay = ws->layout[i];
	int k, n = 0;

	if (lay < 0)
		return m ? 1 : 0;
	for (k = 0; k < ws->nisl[lay]; k++)
		if (m & ws->isl[lay][k])
			n++;
	return n;
}

/* Fill slot from the current selection and measure it. */
static void describe(ctx_t *x, slot_t *sl, int kind, int32_t domain, int alt)
{
	gp_search_ws_t *ws = x->ws;
	const gp_cluster_t *c = x->c;
	gp_candidate_t *cd = &sl->cand;
	int32_t i, v, lo = -1, hi = -1, lf, nv, ntot;
	uint32_t h = 2166136261u;
	bool any_noleaf = false;

	memcpy(sl->nodes, ws->sel, (size_t)ws->nsel * sizeof(int32_t));
	radix_i32(sl->nodes, (size_t)ws->nsel, ws->rtmp);
	memset(cd, 0, sizeof(*cd));
	cd->nodes = sl->nodes;
	cd->gpu_mask = sl->mask;
	cd->nnodes = ws->nsel;
	cd->kind = (gp_domain_kind_t)kind;
	cd->domain = domain;
	cd->alt = alt;
	cd->top_switch = -1;
	cd->level = -1;
	next_stamp(ws);
	/* The selection stamp is spent now; the per-object stamps below share
	 * the counter so a new value never matches an old mark. */
	nv = -2;
	for (i = 0; i < cd->nnodes; i++) {
		const struct node_topo *nd;
		int32_t pos;

		v = sl->nodes[i];
		nd = &ws->topo[v];
		sl->mask[i] = choose_gpus(ws, v, ws->freem[v], ws->take[v]);
		cd->ngpus += pc32(sl->mask[i]);
		if (islands_of(ws, v, sl->mask[i]) > 1)
			cd->split_nodes++;
		if (ws->whole[v] && ws->take[v] < nd->ngpus)
			cd->frag++;
		h = (h ^ (uint32_t)v) * 16777619u;
		h = (h ^ sl->mask[i]) * 16777619u;
		pos = c->node_pos[v];
		if (lo < 0 || pos < lo)
			lo = pos;
		if (pos > hi)
			hi = pos;
		lf = nd->leaf;
		if (lf < 0) {
			any_noleaf = true;
		} else {
			if (ws->sw_stamp[lf] != ws->stamp) {
				ws->sw_stamp[lf] = ws->stamp;
				ws->sw_acc[lf] = 0;
				cd->nleaves++;
			}
			ws->sw_acc[lf] += ws->take[v];
		}
		if (nd->rack >= 0 && ws->rk_stamp[nd->rack] != ws->stamp) {
			ws->rk_stamp[nd->rack] = ws->stamp;
			cd->nracks++;
		}
		if (nd->nvl >= 0) {
			if (ws->nv_stamp[nd->nvl] != ws->stamp) {
				ws->nv_stamp[nd->nvl] = ws->stamp;
				ws->nv_acc[nd->nvl] = 0;
			}
			ws->nv_acc[nd->nvl] += ws->take[v];
		}
		if (i == 0)
			nv = nd->nvl;
		else if (nv != nd->nvl)
			nv = -1;
	}
	cd->one_nvl = nv >= 0;
	sl->hash = h;
	/* broken leaves and NVLink domains */
	for (i = 0; i < cd->nnodes; i++) {
		const struct node_topo *nd = &ws->topo[sl->nodes[i]];

		lf = nd->leaf;
		if (lf >= 0 && ws->sw_stamp[lf] == ws->stamp) {
			const gp_switch_t *w = &c->switches[lf];

			ws->sw_stamp[lf] = ws->stamp - 1; /* count once */
			ntot = ws->ptot[w->first + w->count] - ws->ptot[w->first];
			if (ws->pw[w->first + w->count] - ws->pw[w->first] == w->count &&
			    ws->sw_acc[lf] < ntot)
				cd->frag += 4;
		}
		if (nd->nvl >= 0 && ws->nv_stamp[nd->nvl] == ws->stamp) {
			const gp_nvl_domain_t *d = &c->nvl[nd->nvl];
			int32_t j, allw = 1;

			ws->nv_stamp[nd->nvl] = ws->stamp - 1;
			for (j = 0; j < d->nnodes; j++)
				if (!ws->whole[d->nodes[j]])
					allw = 0;
			if (allw && ws->nv_acc[nd->nvl] < ws->nv_gpus[nd->nvl])
				cd->frag += 4;
		}
	}
	/* the lowest switch enclosing every node */
	if (!any_noleaf && cd->nnodes > 0) {
		int32_t sw = ws->topo[sl->nodes[0]].leaf;

		while (sw >= 0) {
			const gp_switch_t *w = &c->switches[sw];

			if (w->first <= lo && hi < w->first + w->count)
				break;
			sw = w->parent;
		}
		if (sw >= 0 && !c->switches[sw].disconnected) {
			cd->top_switch = sw;
			cd->level = c->switches[sw].level;
		}
	}
}

/* Up (not DOWN or DRAIN), with GPUs and none of them allocated. */
static bool node_whole(const gp_cluster_t *c, const gp_state_t *s, int32_t v)
{
	uint32_t full = c->nodes[v].ngpus >= 32 ? 0xffffffffu
	                : c->nodes[v].ngpus <= 0 ? 0 : ((1u << c->nodes[v].ngpus) - 1);

	return !(s->node_flags[v] & (GP_NODE_DOWN | GP_NODE_DRAIN)) && !(s->alloc_mask[v] & full) &&
	       full;
}

int32_t gp__candidate_frag(const gp_cluster_t *c, const gp_state_t *s, const int32_t *nodes,
                           const uint32_t *mask, int32_t n)
{
	int32_t frag = 0, i, j, k;

	for (i = 0; i < n; i++) {
		int32_t v = nodes[i], t = gp__popcount(mask[i]);
		const gp_node_t *nd = &c->nodes[v];
		bool seen_leaf = false, seen_nvl = false;

		if (node_whole(c, s, v) && t < nd->ngpus)
			frag++;
		/* each leaf / NVLink domain once, at its first node in the set */
		for (j = 0; j < i; j++) {
			seen_leaf |= nd->leaf >= 0 && c->nodes[nodes[j]].leaf == nd->leaf;
			seen_nvl |= nd->nvl_domain >= 0 && c->nodes[nodes[j]].nvl_domain == nd->nvl_domain;
		}
		if (nd->leaf >= 0 && !seen_leaf) {
			const gp_switch_t *w = &c->switches[nd->leaf];
			int32_t taken = 0, total = 0, allw = 1;

			for (k = w->first; k < w->first + w->count; k++) {
				int32_t u = c->node_order[k];

				total += c->nodes[u].ngpus;
				allw &= node_whole(c, s, u);
			}
			for (j = 0; j < n; j++)
				if (c->nodes[nodes[j]].leaf == nd->leaf)
					taken += gp__popcount(mask[j]);
			if (allw && taken < total)
				frag += 4;
		}
		if (nd->nvl_domain >= 0 && !seen_nvl) {
			const gp_nvl_domain_t *d = &c->nvl[nd->nvl_domain];
			int32_t taken = 0, total = 0, allw = 1;

			for (k = 0; k < d->nnodes; k++) {
				total += c->nodes[d->nodes[k]].ngpus;
				allw &= node_whole(c, s, d->nodes[k]);
			}
			for (j = 0; j < n; j++)
				if (c->nodes[nodes[j]].nvl_domain == nd->nvl_domain)
					taken += gp__popcount(mask[j]);
			if (allw && taken < total)
				frag += 4;
		}
	}
	return frag;
}

int gp__score_default(void *arg, const gp_candidate_t *cd, double *score)
{
	double span;

	(void)arg;
	if (cd->one_nvl)
		span = 0;
	else if (cd->level >= 0)
		span = 1 + cd->level;
	else
		span = 1 + GP_MAX_LEVELS;
	*score = 1e6 * span + 1e4 * (cd->nleaves > 1 ? cd->nleaves - 1 : 0) +
	         1e2 * (cd->nnodes - 1) + 10.0 * cd->frag + 5.0 * cd->split_nodes +
	         (cd->nracks > 1 ? cd->nracks - 1 : 0);
	return GP_OK;
}

/* Score the spare slot and keep it if it is among the best kmax.  Returns
 * 1 if kept, 0 if dropped (duplicate or worse), or a gp_err code. */
static int offer(ctx_t *x, gp_score_fn score, void *arg, gp_error_t *err)
{
	gp_search_ws_t *ws = x->ws;
	slot_t *sp = ws->pool[ws->npool], *t;
	int i, worst, rc;

	for (i = 0; i < ws->npool; i++) {
		slot_t *o = ws->pool[i];

		if (o->hash == sp->hash && o->cand.nnodes == sp->cand.nnodes &&
		    !memcmp(o->nodes, sp->nodes, (size_t)sp->cand.nnodes * sizeof(int32_t)) &&
		    !memcmp(o->mask, sp->mask, (size_t)sp->cand.nnodes * sizeof(uint32_t)))
			return 0;
	}
	sp->cand.seq = ws->seq++;
	rc = score(arg, &sp->cand, &sp->cand.score);
	if (rc)
		return gp__errorf(err, rc < 0 ? rc : GP_EINTERNAL,
		                  "scoring a candidate failed (%s)", gp_strerror(rc));
	if (ws->npool < ws->kmax) {
		ws->npool++;
		return 1;
	}
	worst = 0;
	for (i = 1; i < ws->npool; i++)
		if (cmp_cand(&ws->pool[i]->cand, &ws->pool[worst]->cand) > 0)
			worst = i;
	if (cmp_cand(&sp->cand, &ws->pool[worst]->cand) >= 0)
		return 0;
	t = ws->pool[worst];
	ws->pool[worst] = sp;
	ws->pool[ws->npool] = t;
	return 1;
}

/*
 * --segment (Slurm's topology/block): the job's seg_nodes nodes in whole
 * segments of seg nodes, every segment inside one block, from the nodes of
 * a domain (list or, by_pos, a range of the DFS order).  Blocks are chosen
 * best fit: the block with the fewest segments that holds all of them, else
 * the blocks with the most segments first (fewest blocks); inside a block
 * the nodes with the fewest usable GPUs that hold seg_gpus go first.
 * Returns the GPUs taken (seg_nodes * seg_gpus, or 0 when the domain
 * cannot hold the segments).
 */
static int32_t segment_list(ctx_t *x, const int32_t *nodes, int32_t nn, bool by_pos)
{
	gp_search_ws_t *ws = x->ws;
	const gp_cluster_t *c = x->c;
	int32_t i, n = 0, nb = 0, v, b, need = x->seg_nodes / x->seg, best = -1, got = 0;

	for (i = 0; i < nn; i++) {
		v = by_pos ? c->node_order[nodes[0] + i] : nodes[i];
		b = c->nodes[v].block;
		if (ws->usable[v] < x->seg_gpus || ws->taken[v] == ws->stamp || b < 0 ||
		    b >= c->nblocks)
			continue;
		ws->keys[n++] = node_key(ws, v);
		if (ws->bk_stamp[b] != ws->stamp) {
			ws->bk_stamp[b] = ws->stamp;
			ws->bk_cnt[b] = 0;
			ws->bk_keys[nb++] = (uint64_t)b;
		}
		ws->bk_cnt[b]++;
	}
	/* segments per block; the tightest block holding them all */
	for (i = 0; i < nb; i++) {
		b = (int32_t)ws->bk_keys[i];
		ws->bk_cnt[b] /= x->seg;
		if (ws->bk_cnt[b] >= need && (best < 0 || ws->bk_cnt[b] < ws->bk_cnt[best] ||
		                              (ws->bk_cnt[b] == ws->bk_cnt[best] && b < best)))
			best = b;
	}
	if (best >= 0) {
		for (i = 0; i < nb; i++)
			ws->bk_cnt[ws->bk_keys[i]] = 0;
		ws->bk_cnt[best] = need * x->seg;
	} else {
		/* most segments first, lower block index among equals */
		for (i = 0; i < nb; i++) {
			b = (int32_t)ws->bk_keys[i];
			ws->bk_keys[i] = ((uint64_t)(INT32_MAX - ws->bk_cnt[b]) << 32) | (uint32_t)b;
		}
		radix_u64(ws->bk_keys, (size_t)nb, ws->rtmp);
		for (i = 0; i < nb; i++) {
			int32_t take;

			b = (int32_t)(ws->bk_keys[i] & 0xffffffffu);
			take = ws->bk_cnt[b] < need ? ws->bk_cnt[b] : need;
			need -= take;
			ws->bk_cnt[b] = take * x->seg; /* from here on: nodes to take */
		}
		if (need > 0)
			return 0;
	}
	/* nodes: best fit inside each chosen block */
	radix_u64(ws->keys, (size_t)n, ws->rtmp);
	for (i = 0; i < n; i++) {
		v = KEY_NODE(ws->keys[i]);
		b = c->nodes[v].block;
		if (ws->bk_cnt[b] <= 0)
			continue;
		ws->bk_cnt[b]--;
		take_node(x, v, x->seg_gpus);
		got += x->seg_gpus;
	}
	return got;
}

/* Select inside one domain; fills the spare slot.  true on success. */
static bool select_in(ctx_t *x, const domain_t *d)
{
	gp_search_ws_t *ws = x->ws;
	const gp_cluster_t *c = x->c;
	int32_t R;

	if (x->seg) {
		int32_t first = 0;

		if (begin_selection(x, &R) < 0)
			return false;
		if (d->kind == GP_DOM_SWITCH) {
			first = c->switches[d->idx].first;
			R -= segment_list(x, &first, c->switches[d->idx].count, true);
		} else if (d->kind == GP_DOM_NVL) {
			R -= segment_list(x, c->nvl[d->idx].nodes, c->nvl[d->idx].nnodes, false);
		} else {
			R -= segment_list(x, &first, ws->n, true);
		}
		return selection_ok(x, R);
	}

	if (d->kind == GP_DOM_SWITCH) {
		if (begin_selection(x, &R) < 0)
			return false;
		R -= pick_switch(x, d->idx, R);
		if (selection_ok(x, R))
			return true;
		/* flat best fit over the subtree */
		if (begin_selection(x, &R) < 0)
			return false;
		{
			const gp_switch_t *w = &c->switches[d->idx];
			int32_t first = w->first;

			R -= greedy_list(x, &first, w->count, true, R);
		}
		return selection_ok(x, R);
	}
	if (begin_selection(x, &R) < 0)
		return false;
	if (d->kind == GP_DOM_NVL) {
		R -= greedy_list(x, c->nvl[d->idx].nodes, c->nvl[d->idx].nnodes, false, R);
	} else {
		int32_t first = 0;

		R -= greedy_list(x, &first, ws->n, true, R);
	}
	return selection_ok(x, R);
}

/* Jobs needing more nodes than this get no balanced alternative: one
 * unevenly loaded node among many changes little, and evaluating a second
 * set per domain of a large job costs what the 1 ms budget cannot spare
 * (bench/bench_decide). */
#define BALANCED_MAX_NODES 64

typedef int32_t (*list_fn)(ctx_t *x, const int32_t *nodes, int32_t nn, bool by_pos, int32_t R);

/* An alternative selection with fn inside one domain (jobs of up to
 * BALANCED_MAX_NODES nodes without --nodelist). */
static bool select_with(ctx_t *x, const domain_t *d, list_fn fn)
{
	gp_search_ws_t *ws = x->ws;
	const gp_cluster_t *c = x->c;
	int32_t R, first = 0;

	if (x->r->nrequired || ws->nsel > BALANCED_MAX_NODES || begin_selection(x, &R) < 0)
		return false;
	if (d->kind == GP_DOM_SWITCH) {
		first = c->switches[d->idx].first;
		R -= fn(x, &first, c->switches[d->idx].count, true, R);
	} else if (d->kind == GP_DOM_NVL) {
		R -= fn(x, c->nvl[d->idx].nodes, c->nvl[d->idx].nnodes, false, R);
	} else {
		R -= fn(x, &first, ws->n, true, R);
	}
	return selection_ok(x, R);
}

/* The balanced alternative inside one domain (see balanced_list); none when
 * the request fixes GPUs per node or names nodes. */
static bool select_balanced_in(ctx_t *x, const domain_t *d)
{
	/* ws->nsel (select_with): nodes of the best-fit set just made in this
	 * domain */
	if (x->seg || x->r->gpus_per_node)
		return false;
	return select_with(x, d, balanced_list);
}

/* The power-spread alternative inside one domain (see spread_list); only
 * with rack budgets, and for jobs of a few nodes like the balanced one. */
static bool select_spread_in(ctx_t *x, const domain_t *d)
{
	if (!x->ws->budget || x->c->nracks == 0)
		return false;
	return select_with(x, d, spread_list);
}

/* Largest domain (nodes) the power-spread, NVLink-domain and rail-aligned
 * alternatives are made in: each sorts the domain's nodes, and their jobs
 * (up to BALANCED_MAX_NODES nodes) rarely gain from a whole core layer;
 * 2,048 nodes is four spine groups of the synthetic SuperPOD layout. */
#define ALT_MAX_DOMAIN_NODES 2048

static int32_t dom_nodes(const gp_cluster_t *c, const domain_t *d)
{
	if (d->kind == GP_DOM_SWITCH)
		return c->switches[d->idx].count;
	if (d->kind == GP_DOM_NVL)
		return c->nvl[d->idx].nnodes;
	return c->nnodes;
}

/* Switches whose best fit is a child's but whose alternatives are still
 * tried, per search: each costs up to three evaluations. */
#define ALT_PARENTS 2

/* Can a best fit keep whole groups of ws->granule GPUs on each node?  Not
 * when the request fixes what nodes give (--gpus-per-node, node counts,
 * --nodelist, --segment) or its GPUs are not whole groups. */
static bool aligned_applies(const ctx_t *x)
{
	const gp_request_t *r = x->r;

	return x->ws->granule > 1 && !x->seg && !r->gpus_per_node && !r->nrequired &&
	       x->min_needed <= 1 && !r->max_nodes && r->gpus % x->ws->granule == 0;
}

/*
 * The smallest, then tightest, domain that holds the job in whole groups
 * (each node giving its usable GPUs rounded down to the granule) with a
 * key above *after (any when NULL): its key, or UINT64_MAX for none.  A
 * scan, not a sort: one or two are wanted.
 */
static uint64_t aligned_domain(const ctx_t *x, const uint64_t *after)
{
	const gp_search_ws_t *ws = x->ws;
	const gp_cluster_t *c = x->c;
	const int32_t R = x->r->gpus;
	uint64_t best = UINT64_MAX, key;
	int32_t i, j;

	for (i = 0; i < c->nnvl; i++) {
		const gp_nvl_domain_t *d = &c->nvl[i];
		int32_t g = 0;

		if (ws->nv_split[i])
			continue;
		for (j = 0; j < d->nnodes; j++)
			g += ws->atab[ws->usable[d->nodes[j]] & 127];
		key = dom_key(0, g - R, false, i);
		if (g >= R && (!after || key > *after) && key < best)
			best = key;
	}
	for (i = 0; i < c->nswitches; i++) {
		const gp_switch_t *w = &c->switches[i];
		int32_t g = ws->pa[w->first + w->count] - ws->pa[w->first];

		if (w->disconnected || g < R)
			continue;
		key = dom_key(1 + (uint32_t)w->level, g - R, false, i);
		if ((!after || key > *after) && key < best)
			best = key;
	}
	if (c->root < 0 && ws->pa[c->nnodes] >= R) {
		key = dom_key(DOM_RANK_CLUSTER, ws->pa[c->nnodes] - R, false, -1);
		if ((!after || key > *after) && key < best)
			best = key;
	}
	return best;
}

/* Tries of aligned_domain()'s domains per search, each a selection. */
#define ALIGNED_TRIES 2

/* Describe the selection just made in d and offer it: 1 kept, 0 not, or
 * a gp_err code. */
static int keep_selection(ctx_t *x, const domain_t *d, int alt, gp_score_fn score, void *arg,
                          gp_error_t *err)
{
	gp_search_ws_t *ws = x->ws;

	describe(x, ws->pool[ws->npool], d->kind, d->idx,
	         x->r->constraint && x->r->constraint->match >= 0 ? alt : -1);
	return offer(x, score, arg, err);
}

/* One alternative: domains smallest first, up to k new candidates. */
static int search_alt(ctx_t *x, int alt, int k, gp_score_fn score, void *arg, bool *any_fit,
                      gp_error_t *err)
{
	gp_search_ws_t *ws = x->ws;
	const gp_cluster_t *c = x->c;
	int32_t i, j, nd = 0, v, added = 0, parents = 0;
	bool alts_only;
	int rc;

	/* prefix sums over the DFS order; with rack budgets a rack's nodes
	 * count only up to its budget (in DFS order), so a domain's total is
	 * what its racks can power, not what its nodes have free */
	if (ws->budget && !ws->prefix_ready)
		next_stamp(ws);
	for (i = 0; !ws->prefix_ready && i < c->nnodes; i++) {
		int32_t u;

		v = c->node_order[i];
		u = ws->usable[v];
		if (ws->budget && u > 0) {
			int32_t l = rack_left(ws, v), rk = ws->rack[v];

			if (l != INT32_MAX) {
				if (u > l)
					u = l;
				ws->rk_left[rk] = l - u;
				ws->rk_lstamp[rk] = ws->stamp;
			}
		}
		ws->pg[i + 1] = ws->pg[i] + u;
		ws->pn[i + 1] = ws->pn[i] + (u > 0);
		ws->pw[i + 1] = ws->pw[i] + ws->whole[v];
		ws->pa[i + 1] = ws->pa[i] + ws->atab[u > 0 ? u : 0];
	}
	/* NVLink domains */
	for (i = 0; i < c->nnvl; i++) {
		const gp_nvl_domain_t *d = &c->nvl[i];
		int32_t g = 0, n = 0;

		if ((x->r->nrequired && x->req_nvl != i) || ws->nv_split[i])
			continue;
		for (j = 0; j < d->nnodes; j++) {
			g += ws->usable[d->nodes[j]];
			n += ws->usable[d->nodes[j]] > 0;
		}
		if (fits(x, g, n))
			ws->dom[nd++] = dom_key(0, g - x->r->gpus, false, i);
	}
	/* switches (a switch with a child that fits is tried only if no such
	 * child yields a set: its best fit would be that child's) */
	for (i = 0; i < c->nswitches; i++) {
		const gp_switch_t *w = &c->switches[i];
		bool child_fits = false;

		if (w->disconnected || !sw_has_required(x, w) ||
		    !fits(x, sw_gpus(ws, w), sw_nodes(ws, w)))
			continue;
		for (j = 0; j < w->nchildren && !child_fits; j++) {
			const gp_switch_t *ch = &c->switches[w->children[j]];

			child_fits =
			    sw_has_required(x, ch) && fits(x, sw_gpus(ws, ch), sw_nodes(ws, ch));
		}
		ws->dom[nd++] =
		    dom_key(1 + (uint32_t)w->level, sw_gpus(ws, w) - x->r->gpus, child_fits, i);
	}
	if (c->root < 0 && fits(x, ws->pg[c->nnodes], ws->pn[c->nnodes]))
		ws->dom[nd++] =
		    dom_key(DOM_RANK_CLUSTER, ws->pg[c->nnodes] - x->r->gpus, false, -1);
	if (nd)
		*any_fit = true;
	radix_u64(ws->dom, (size_t)nd, ws->rtmp);
	if (++ws->ok_stamp == 0) {
		memset(ws->sw_ok, 0,
		       (size_t)(c->nswitches > 0 ? c->nswitches : 1) * sizeof(uint32_t));
		ws->ok_stamp = 1;
	}
	/*
	 * A job whose innermost groups (TP) should stay on one node: first the
	 * best fit in whole groups, in the smallest domain that holds the job
	 * so (the next one when that yields no set).  The plain best fit packs
	 * a large job onto partly free nodes, splitting most of its groups
	 * across nodes (their traffic over the network instead of NVLink), and
	 * a set of more than BALANCED_MAX_NODES nodes gets no alternative that
	 * would not; the score decides between this set and the plain ones.
	 */
	if (aligned_applies(x)) {
		uint64_t key = 0;
		int tries;

		for (tries = 0; tries < ALIGNED_TRIES && added < k; tries++) {
			domain_t ad;
			bool ok;

			key = aligned_domain(x, tries ? &key : NULL);
			if (key == UINT64_MAX)
				break;
			ad = dom_decode(key);
			ws->gran = ws->granule;
			ok = select_in(x, &ad);
			ws->gran = 1;
			if (!ok)
				continue;
			if ((rc = keep_selection(x, &ad, alt, score, arg, err)) < 0)
				return rc;
			added += rc;
			break;
		}
	}
	for (i = 0; i < nd && added < k; i++) {
		domain_t dd = dom_decode(ws->dom[i]);
		const domain_t *d = &dd;

		alts_only = false;
		if (d->kind == GP_DOM_SWITCH && d->child_fits) {
			const gp_switch_t *w = &c->switches[d->idx];

			for (j = 0; j < w->nchildren; j++)
				if (ws->sw_ok[w->children[j]] == ws->ok_stamp)
					break;
			if (j < w->nchildren) {
				ws->sw_ok[d->idx] = ws->ok_stamp;
				/* its best fit is a child's; the alternatives may
				 * still gain by crossing children (rails, NVLink
				 * domains, power), in the first few such switches */
				if (parents++ >= ALT_PARENTS)
					continue;
				alts_only = true;
			}
		}
		if (alts_only && ws->best_fit_only)
			continue;
		if (!alts_only) {
			if (!select_in(x, d))
				continue;
			ws->last_nsel = ws->nsel;
			if (d->kind == GP_DOM_SWITCH)
				ws->sw_ok[d->idx] = ws->ok_stamp;
			if ((rc = keep_selection(x, d, alt, score, arg, err)) < 0)
				return rc;
			added += rc;
			if (ws->best_fit_only)
				continue;
			if (select_balanced_in(x, d)) {
				if ((rc = keep_selection(x, d, alt, score, arg, err)) < 0)
					return rc;
				added += rc;
			}
		} else {
			/* the alternatives' size gate: the last best-fit set's */
			ws->nsel = ws->last_nsel;
		}
		/* the alternatives sort their domain's nodes: not in domains
		 * far larger than any job they serve */
		if (dom_nodes(c, d) > ALT_MAX_DOMAIN_NODES)
			continue;
		if (select_spread_in(x, d)) {
			if ((rc = keep_selection(x, d, alt, score, arg, err)) < 0)
				return rc;
			added += rc;
		}
		if (c->nnvl > 0 && d->kind != GP_DOM_NVL && select_with(x, d, nvl_list)) {
			if ((rc = keep_selection(x, d, alt, score, arg, err)) < 0)
				return rc;
			added += rc;
		}
		if (ws->multi_rail && select_with(x, d, rail_list)) {
			if ((rc = keep_selection(x, d, alt, score, arg, err)) < 0)
				return rc;
			added += rc;
		}
	}
	return GP_OK;
}

/* Why node i is not eligible (before the constraint), or NULL. */
static const char *node_reason(const ctx_t *x, int32_t i, int32_t part, int8_t *u, uint32_t *fm)
{
	const gp_node_t *nd = &x->c->nodes[i];
	const gp_request_t *r = x->r;
	uint32_t full = gp__gpu_full_mask(nd->ngpus);
	uint32_t flags = x->s->node_flags[i], alloc = x->s->alloc_mask[i] & full;
	int32_t f;

	*u = 0;
	*fm = full & ~alloc;
	if (part >= 0 && !gp__node_in_part(x->c, i, part))
		return "not in the partition";
	if (flags & (GP_NODE_DOWN | GP_NODE_DRAIN | GP_NODE_RESERVED))
		return "down, drained or reserved";
	if (x->ws->excl[i])
		return "excluded";
	f = pc32(*fm);
	if (r->exclusive && alloc)
		return "in use (--exclusive needs an idle node)";
	if (r->gpus_per_node) {
		if (f < r->gpus_per_node)
			return "too few free GPUs";
		f = r->gpus_per_node;
	}
	if (f <= 0)
		return "too few free GPUs";
	if (f > r->gpus)
		f = r->gpus;
	*u = (int8_t)f;
	return NULL;
}

/* Why nodes give the search nothing, for the message when no set is
 * found. */
struct elig_counts {
	int32_t part, state, excl, gpus, feat, power, ok, usable;
};

/* The request's tests beyond state, GPUs and power: partition, --exclude,
 * --exclusive and the constraint (whose node mask it leaves in fmask). */
static bool admitted(const ctx_t *x, int32_t i, int32_t part, uint32_t alloc, int nalts)
{
	gp_search_ws_t *ws = x->ws;
	const gp_constraint_t *kc = x->r->constraint;
	int alt;

	if (part >= 0 && !gp__node_in_part(x->c, i, part))
		return false;
	if (ws->excl[i] || (x->r->exclusive && alloc))
		return false;
	if (kc) {
		ws->fmask[i] = gp__constraint_node_mask(kc, x->c->nodes[i].features);
		for (alt = 0; alt < nalts; alt++)
			if (gp__constraint_eval(kc, ws->fmask[i], alt))
				break;
		if (alt == nalts)
			return false;
	}
	return true;
}

/* The eligibility pass's tests again, in order, counting the first that
 * fails per node (n->ok, n->usable: the nodes that pass, their GPUs). */
static void count_ineligible(const ctx_t *x, int32_t part, struct elig_counts *n)
{
	const gp_cluster_t *c = x->c;
	const gp_state_t *s = x->s;
	const gp_request_t *r = x->r;
	gp_search_ws_t *ws = x->ws;
	const gp_constraint_t *kc = r->constraint;
	int32_t gpn = r->gpus_per_node, cap = r->gpus < 127 ? r->gpus : 127, i;
	int nalts = kc ? kc->nalts : 1, alt;

	memset(n, 0, sizeof(*n));
	for (i = 0; i < c->nnodes; i++) {
		uint32_t full = ws->full[i], alloc = s->alloc_mask[i] & full;
		uint32_t fl = s->node_flags[i];
		int32_t f, rk, b = -1;

		if (ws->budget && (rk = ws->rack[i]) >= 0)
			b = ws->budget[rk];
		if (part >= 0 && !gp__node_in_part(c, i, part)) {
			n->part++;
			continue;
		}
		if (fl & (GP_NODE_DOWN | GP_NODE_DRAIN | GP_NODE_RESERVED)) {
			n->state++;
			continue;
		}
		if (ws->excl[i]) {
			n->excl++;
			continue;
		}
		if (r->exclusive && alloc) {
			n->gpus++;
			continue;
		}
		f = pc32(full & ~alloc);
		if (b >= 0 && b < f) {
			f = b;
			if (f <= 0 || (gpn && f < gpn)) {
				n->power++;
				continue;
			}
		}
		if (gpn) {
			if (f < gpn) {
				n->gpus++;
				continue;
			}
			f = gpn;
		}
		if (f <= 0) {
			n->gpus++;
			continue;
		}
		if (f > cap)
			f = cap;
		if (kc) {
			uint64_t fmask = gp__constraint_node_mask(kc, c->nodes[i].features);

			for (alt = 0; alt < nalts; alt++)
				if (gp__constraint_eval(kc, fmask, alt))
					break;
			if (alt == nalts) {
				n->feat++;
				continue;
			}
		}
		n->ok++;
		n->usable += f;
	}
}

/* What one eligibility pass applies per node. */
struct pass {
	int32_t part;          /* the partition, -1 = any (or one that holds every node) */
	int32_t gpn, need;     /* --gpus-per-node (0 none); the least a node must give */
	int32_t cap;           /* the most one node gives */
	const int32_t *budget; /* GPUs per rack its power allows, NULL none */
	bool plain;            /* no partition, --exclude, --exclusive or constraint */
	int nalts;
};

/* What an eligible node with f free GPUs (f < 0: ineligible) gives under
 * its rack's budget b (-1: no limit): its free GPUs within the budget,
 * --gpus-per-node exactly, or none. */
static inline __attribute__((always_inline)) int32_t node_share(const struct pass *pp, int32_t f,
                                                                int32_t b)
{
	int32_t u;

	if (b >= 0 && b < f)
		f = b;
	u = f < pp->need ? 0 : pp->gpn ? pp->gpn : f;
	return u > pp->cap ? pp->cap : u;
}

/*
 * Node i under the current state: its free mask and wholeness, its free
 * GPUs if it is eligible (fpre, -1 if not: down, drained, reserved, or
 * failing the request's partition, --exclude, --exclusive or constraint)
 * and what it gives under its rack's budget (ubase, returned; the budget
 * in *b, -1 none).  Without branches on the node's outcome where it can
 * be, as under GPU-level occupancy that is a coin toss per node.  Why a
 * node gives nothing is counted only when no set is found
 * (count_ineligible(), the same tests in order).
 */
static inline __attribute__((always_inline)) int32_t node_base(const ctx_t *x,
                                                               const struct pass *pp,
                                                               int32_t i, int32_t *b)
{
	gp_search_ws_t *ws = x->ws;
	uint32_t full = ws->full[i], alloc = x->s->alloc_mask[i] & full;
	uint32_t fl = x->s->node_flags[i], fm = full & ~alloc;
	int32_t f, rk, u;

	ws->freem[i] = fm;
	ws->whole[i] = (uint8_t)(((fl & (GP_NODE_DOWN | GP_NODE_DRAIN)) == 0) & (alloc == 0) &
	                         (full != 0));
	f = pc32(fm);
	if (fl & (GP_NODE_DOWN | GP_NODE_DRAIN | GP_NODE_RESERVED))
		f = -1;
	if (!pp->plain && f >= pp->need && !admitted(x, i, pp->part, alloc, pp->nalts))
		f = -1;
	ws->fpre[i] = (int8_t)(f > 127 ? 127 : f);
	*b = -1;
	if (pp->budget && (rk = ws->rack[i]) >= 0)
		*b = pp->budget[rk];
	u = node_share(pp, f, *b);
	ws->ubase[i] = (int8_t)u;
	return u;
}

/* Every node, in DFS order, so that without matching-OR alternatives
 * (fuse) the prefix sums search_alt needs come out of the same pass; a
 * rack's nodes count only up to its budget, in DFS order.  With fuse the
 * pass is kept for gp__search_ws_reuse(). */
static void full_pass(ctx_t *x, const struct pass *pp, bool fuse)
{
	gp_search_ws_t *ws = x->ws;
	const gp_cluster_t *c = x->c;
	/* node_base() and the budget spent, written out over arrays held in
	 * restrict locals: through ws the compiler reloads every array pointer
	 * per node (any store might change ws), and the two tests on a node's
	 * outcome become selects (test_reuse checks this loop against
	 * node_base() on random states) */
	const uint32_t *restrict full = ws->full, *restrict am = x->s->alloc_mask;
	const uint32_t *restrict nf = x->s->node_flags;
	const int32_t *restrict rack = ws->rack, *restrict budget = pp->budget;
	const int32_t *restrict order = ws->dfs_identity ? NULL : c->node_order;
	uint32_t *restrict freem = ws->freem, *restrict rk_lstamp = ws->rk_lstamp;
	uint8_t *restrict whole = ws->whole;
	int8_t *restrict fpre = ws->fpre, *restrict ubase = ws->ubase, *restrict ueff = ws->ueff;
	int32_t *restrict pg = ws->pg, *restrict pn = ws->pn, *restrict pw = ws->pw;
	int32_t *restrict pa = ws->pa;
	const int8_t *restrict atab = ws->atab;
	int32_t *restrict rk_left = ws->rk_left;
	const int32_t need = pp->need, gpn = pp->gpn, cap = pp->cap, nn = c->nnodes;
	const bool plain = pp->plain;
	/* the running prefix sums, in locals: the stores to the workspace's
	 * arrays would otherwise force a reload of the last sum per node */
	int32_t acc_g = 0, acc_n = 0, acc_w = 0, acc_a = 0, dfs, q, crk = -1, cl = 0;
	uint32_t stamp;

	if (fuse && budget)
		next_stamp(ws);
	stamp = ws->stamp;
	for (dfs = 0; dfs < nn; dfs++) {
		int32_t i = order ? order[dfs] : dfs, f, u, b = -1, rk = -1;
		uint32_t fu = full[i], fl = nf[i], alloc = am[i] & fu, fm = fu & ~alloc;
		uint8_t wh = (uint8_t)(((fl & (GP_NODE_DOWN | GP_NODE_DRAIN)) == 0) & (alloc == 0) &
		                       (fu != 0));

		freem[i] = fm;
		whole[i] = wh;
		f = pc32(fm);
		f = (fl & (GP_NODE_DOWN | GP_NODE_DRAIN | GP_NODE_RESERVED)) ? -1 : f;
		if (!plain && f >= need && !admitted(x, i, pp->part, alloc, pp->nalts))
			f = -1;
		fpre[i] = (int8_t)f;
		if (budget && (rk = rack[i]) >= 0)
			b = budget[rk];
		u = b >= 0 && b < f ? b : f;
		u = (gpn ? gpn : u) & -(int32_t)(u >= need);
		u = u > cap ? cap : u;
		ubase[i] = (int8_t)u;
		if (!fuse)
			continue;
		/* what rack_left() gives; a node that gives nothing takes
		 * nothing, so this needs no test of u.  The budget left in the
		 * rack of the last node stays in a register (a rack's nodes
		 * are mostly consecutive in DFS order, and through rk_left
		 * each node waited for the store of the one before) and goes
		 * to rk_left when another rack comes */
		if (b >= 0) {
			int32_t l;

			if (rk == crk) {
				l = cl;
			} else {
				if (crk >= 0) {
					rk_left[crk] = cl;
					rk_lstamp[crk] = stamp;
				}
				l = rk_lstamp[rk] == stamp ? rk_left[rk] : b;
				crk = rk;
			}
			u = u > l ? l : u;
			cl = l - u;
		}
		ueff[i] = (int8_t)u;
		acc_g += u;
		acc_n += u > 0;
		acc_w += wh;
		acc_a += atab[u]; /* 0 <= u <= cap < 128 */
		pg[dfs + 1] = acc_g;
		pn[dfs + 1] = acc_n;
		pw[dfs + 1] = acc_w;
		pa[dfs + 1] = acc_a;
	}
	if (crk >= 0) {
		rk_left[crk] = cl;
		rk_lstamp[crk] = stamp;
	}
	ws->pass_r = fuse ? x->r : NULL;
	ws->pass_budget = ws->budget != NULL;
	ws->pass_gran = ws->granule;
	for (q = 0; fuse && q < c->nracks; q++)
		ws->bsave[q] = ws->budget ? ws->budget[q] : -1;
	ws->ndirty = 0;
}

/*
 * The last pass again for the same request on a state that differs only
 * at the nodes gp__search_ws_changed() listed and in the budgets of some
 * racks: those nodes, and every node of a rack whose budget or nodes
 * changed (a rack's budget is spent in DFS order), are computed again; the
 * prefix sums are then summed again from what each node gives, a pass over
 * two small arrays instead of the state's.
 */
/* Rack q's budget spent again over its nodes in DFS order (what each
 * gives the prefix sums, ueff), each node whose share changed appended to
 * dl (up to ws->n; *sparse false beyond). */
static inline void respend(gp_search_ws_t *ws, const gp_cluster_t *c, int32_t q, uint64_t *dl,
                           int32_t *nd, bool *sparse)
{
	int32_t l = ws->budget[q], j;

	for (j = ws->rk_first[q]; j < ws->rk_first[q + 1]; j++) {
		int32_t v = ws->rk_nodes[j], u = ws->ubase[v], oe = ws->ueff[v];

		if (u > 0 && l >= 0) {
			if (u > l)
				u = l;
			l -= u;
		}
		ws->ueff[v] = (int8_t)u;
		if (*sparse && u != oe) {
			if (*nd == ws->n)
				*sparse = false;
			else
				dl[(*nd)++] = ((uint64_t)c->node_pos[v] << 32) | (uint64_t)(u - oe + 128) |
				              (uint64_t)((u > 0) - (oe > 0) + 1) << 8 | (uint64_t)1 << 10 |
				              (uint64_t)(ws->atab[u] - ws->atab[oe] + 128) << 12;
		}
	}
}

static void delta_pass(ctx_t *x, const struct pass *pp)
{
	gp_search_ws_t *ws = x->ws;
	const gp_cluster_t *c = x->c;
	int32_t acc_g = 0, acc_n = 0, acc_w = 0, dfs, q, k, j, b, nrk = 0, nd = 0;
	int32_t *rks = ws->scratch; /* racks to spend again, at most nracks */
	/* what changed, for the prefix sums: (DFS position << 32) | the
	 * changes of the node's GPUs, their being > 0, its wholeness and its
	 * GPUs in whole groups (bits 12-19), each biased to be non-negative;
	 * up to n of them in ws->keys (free during the pass), beyond that the
	 * sums are made again in full */
	uint64_t *dl = ws->keys;
	bool sparse = true;

	next_stamp(ws);
	/* changed nodes, in index order (their state and per-node arrays are
	 * then read front to back, not at random: at 65,536 nodes a future
	 * point changes thousands); a rack with a budget is spent again */
	radix_i32(ws->dirty, (size_t)ws->ndirty, ws->rtmp);
	for (k = 0; k < ws->ndirty; k++) {
		int32_t v = ws->dirty[k], rk = ws->rack[v], u;

		int32_t ow, oe;

		if (ws->dstamp[v] == ws->stamp)
			continue;
		ws->dstamp[v] = ws->stamp;
		ow = ws->whole[v];
		oe = ws->ueff[v];
		u = node_base(x, pp, v, &b);
		if (b < 0)
			ws->ueff[v] = (int8_t)u;
		if (sparse && (ws->whole[v] != ow || ws->ueff[v] != oe)) {
			if (nd == ws->n) {
				sparse = false;
			} else {
				int32_t ne = ws->ueff[v];

				dl[nd++] = ((uint64_t)c->node_pos[v] << 32) |
				           (uint64_t)(ne - oe + 128) | (uint64_t)((ne > 0) - (oe > 0) + 1) << 8 |
				           (uint64_t)(ws->whole[v] - ow + 1) << 10 |
				           (uint64_t)(ws->atab[ne] - ws->atab[oe] + 128) << 12;
			}
		}
		if (b < 0)
			continue;
		if (ws->rk_lstamp[rk] != ws->stamp) {
			ws->rk_lstamp[rk] = ws->stamp;
			rks[nrk++] = rk;
		}
	}
	/* racks whose budget changed: every node's share is new, from what
	 * it has free (unchanged nodes: kept from the last pass) */
	for (q = 0; ws->budget && q < c->nracks; q++) {
		if (ws->budget[q] == ws->bsave[q])
			continue;
		ws->bsave[q] = ws->budget[q];
		for (j = ws->rk_first[q]; j < ws->rk_first[q + 1]; j++) {
			int32_t v = ws->rk_nodes[j];

			if (ws->dstamp[v] != ws->stamp)
				ws->ubase[v] = (int8_t)node_share(pp, ws->fpre[v], ws->budget[q]);
		}
		/* spent now, while its nodes are at hand; a rack listed for
		 * its changed nodes is then not spent again */
		respend(ws, c, q, dl, &nd, &sparse);
		ws->rk_spent[q] = ws->stamp;
	}
	for (k = 0; k < nrk; k++)
		if (ws->rk_spent[rks[k]] != ws->stamp)
			respend(ws, c, rks[k], dl, &nd, &sparse);
	if (sparse) {
		/* each change moves every prefix sum after its position: add
		 * the changes so far to each stretch between two changed
		 * positions (a plain add over the rest of the arrays, no read of
		 * every node) */
		int32_t *restrict pg = ws->pg, *restrict pn = ws->pn, *restrict pw = ws->pw;
		int32_t *restrict pa = ws->pa;
		int32_t cg = 0, cn = 0, cw = 0, ca = 0, from, to;

		radix_u64(dl, (size_t)nd, ws->rtmp);
		for (k = 0; k < nd; k++) {
			cg += (int32_t)(dl[k] & 0xff) - 128;
			cn += (int32_t)((dl[k] >> 8) & 3) - 1;
			cw += (int32_t)((dl[k] >> 10) & 3) - 1;
			ca += (int32_t)((dl[k] >> 12) & 0xff) - 128;
			from = (int32_t)(dl[k] >> 32) + 1;
			to = k + 1 < nd ? (int32_t)(dl[k + 1] >> 32) + 1 : c->nnodes + 1;
			if (!cg && !cn && !cw && !ca)
				continue;
			for (j = from; j < to; j++) {
				pg[j] += cg;
				pn[j] += cn;
				pw[j] += cw;
				pa[j] += ca;
			}
		}
		ws->ndirty = 0;
		return;
	}
	{
		/* restrict locals, as in full_pass() */
		const int8_t *restrict ueff = ws->ueff, *restrict atab = ws->atab;
		const uint8_t *restrict whole = ws->whole;
		const int32_t *restrict order = ws->dfs_identity ? NULL : c->node_order;
		int32_t *restrict pg = ws->pg, *restrict pn = ws->pn, *restrict pw = ws->pw;
		int32_t *restrict pa = ws->pa, acc_a = 0;

		for (dfs = 0; dfs < c->nnodes; dfs++) {
			int32_t i = order ? order[dfs] : dfs, u = ueff[i];

			acc_g += u;
			acc_n += u > 0;
			acc_w += whole[i];
			acc_a += atab[u];
			pg[dfs + 1] = acc_g;
			pn[dfs + 1] = acc_n;
			pw[dfs + 1] = acc_w;
			pa[dfs + 1] = acc_a;
		}
	}
	ws->ndirty = 0;
}

int gp__candidates_search(const gp_cluster_t *c, const gp_state_t *s, const gp_request_t *r, int k,
                          gp_score_fn score, void *score_arg, gp_search_ws_t *ws,
                          const gp_candidate_t **cands, int *ncands, gp_error_t *err)
{
	ctx_t x;
	int32_t part, i, j, v;
	struct elig_counts n;
	const gp_constraint_t *kc = r->constraint;
	int nalts = kc ? kc->nalts : 1, alt, rc;
	bool fuse = nalts == 1;
	bool any_fit = false, req_bad = false;
	char why[256] = "";

	*cands = NULL;
	*ncands = 0;
	if (!c || !s || !ws || ws->c != c || s->nnodes != c->nnodes)
		return gp__errorf(err, GP_EINVAL,
		                  "search: workspace or state is for another cluster");
	if (k < 1 || k > ws->kmax)
		return gp__errorf(err, GP_EINVAL, "search: k must be 1..%d (got %d)", ws->kmax, k);
	rc = gp__request_check(r, c, err);
	if (rc)
		return rc;
	if (!score)
		score = gp__score_default;
	memset(&x, 0, sizeof(x));
	x.c = c;
	x.s = s;
	x.r = r;
	x.ws = ws;
	x.min_needed = r->min_nodes > r->nrequired ? r->min_nodes : r->nrequired;
	if (x.min_needed < 1)
		x.min_needed = 1;
	/* --segment applies where Slurm's topology/block places the job's
	 * partition (not to a tree partition of a two-topology
	 * topology.yaml) and is left to Slurm when the job names its nodes */
	if (r->segment_nodes > 0 && gp__part_blocks(c, gp__request_partition(r, c)) &&
	    r->nrequired == 0) {
		x.seg = r->segment_nodes;
		x.seg_nodes = gp__request_nodes(r);
		x.seg_gpus = r->gpus / x.seg_nodes;
	}
	ws->npool = 0;
	ws->seq = 0;
	ws->last_nsel = r->gpus; /* until a best-fit set says how many nodes */
	ws->scratch_top = 0;
	for (i = 0; i <= ws->kmax; i++)
		ws->pool[i] = &ws->slots[i];
	part = gp__request_partition(r, c);
	/* the exclusion marks: only the previous search's are cleared, not
	 * every node's */
	for (i = 0; i < ws->nexcl; i++)
		ws->excl[ws->excl_list[i]] = 0;
	ws->nexcl = 0;
	for (i = 0; i < r->nexcluded; i++)
		if (!ws->excl[r->excluded[i]]) {
			ws->excl[r->excluded[i]] = 1;
			ws->excl_list[ws->nexcl++] = r->excluded[i];
		}
	/* eligibility pass: static facts from the workspace's compact copies;
	 * what the request does not use (partition, --exclude, --exclusive,
	 * rack budgets) is not read per node */
	{
		struct pass pp;

		/* a partition that holds every node (its list has no
		 * duplicates) needs no per-node test */
		pp.part = part >= 0 && c->parts[part].nnodes < c->nnodes ? part : -1;
		pp.gpn = r->gpus_per_node;
		pp.need = pp.gpn > 0 ? pp.gpn : 1;
		pp.cap = r->gpus < 127 ? r->gpus : 127;
		pp.budget = ws->budget;
		pp.plain = pp.part < 0 && ws->nexcl == 0 && !r->exclusive && !kc;
		pp.nalts = nalts;
		if (fuse && ws->reuse && !ws->dirty_over && ws->pass_r == r &&
		    ws->pass_budget == (ws->budget != NULL) && ws->pass_gran == ws->granule)
			delta_pass(&x, &pp);
		else
			full_pass(&x, &pp, fuse);
		ws->prefix_ready = fuse;
	}
	/* required nodes */
	x.req_lo = x.req_hi = -1;
	x.req_nvl = -2;
	for (i = 0; i < r->nrequired; i++) {
		int8_t u;
		uint32_t fm;
		const char *why_node;
		int32_t pos;

		v = r->required[i];
		why_node = node_reason(&x, v, part, &u, &fm);
		if (!why_node && !ws->ubase[v])
			why_node = ws->budget && c->nodes[v].rack >= 0 &&
			           ws->budget[c->nodes[v].rack] >= 0 &&
			           ws->budget[c->nodes[v].rack] < (r->gpus_per_node ? r->gpus_per_node : 1)
			               ? "in a rack without the power for its share of the job"
			               : "lacks the features of --constraint";
		if (why_node) {
			snprintf(why, sizeof(why), "required node '%s' is %s", c->nodes[v].name,
			         why_node);
			req_bad = true;
			break;
		}
		pos = c->node_pos[v];
		if (x.req_lo < 0 || pos < x.req_lo)
			x.req_lo = pos;
		if (pos > x.req_hi)
			x.req_hi = pos;
		if (i == 0)
			x.req_nvl = c->nodes[v].nvl_domain;
		else if (x.req_nvl != c->nodes[v].nvl_domain)
			x.req_nvl = -2;
	}
	for (alt = 0; alt < nalts && !req_bad; alt++) {
		if (nalts == 1) {
			/* the constraint (if any) is already in ubase */
			ws->usable = ws->ubase;
		} else {
			ws->usable = ws->ualt;
			for (i = 0; i < c->nnodes; i++)
				ws->usable[i] =
				    (ws->ubase[i] && !gp__constraint_eval(kc, ws->fmask[i], alt))
				        ? 0
				        : ws->ubase[i];
		}
		for (j = 0; j < r->nrequired; j++)
			if (!ws->usable[r->required[j]])
				break;
		if (j < r->nrequired)
			continue;
		rc = search_alt(&x, alt, k, score, score_arg, &any_fit, err);
		if (rc < 0)
			return rc;
	}
	if (ws->npool == 0) {
		char need[64] = "", pwhy[96] = "";
		char pname[GP_NAME_MAX + 16] = "";

		count_ineligible(&x, part, &n);

		if (r->gpus_per_node)
			snprintf(need, sizeof(need), " (%d per node)", (int)r->gpus_per_node);
		if (part >= 0)
			snprintf(pname, sizeof(pname), " in partition '%s'", c->parts[part].name);
		if (n.power)
			snprintf(pwhy, sizeof(pwhy), ", %d sit in racks without the power for their "
			         "share", (int)n.power);
		if (!req_bad) {
			if (n.usable < r->gpus)
				snprintf(why, sizeof(why),
				         "only %d usable GPUs on %d eligible nodes", (int)n.usable,
				         (int)n.ok);
			else if (!any_fit)
				snprintf(
				    why, sizeof(why),
				    "%d usable GPUs on %d eligible nodes, but no connected fabric "
				    "domain%s holds the job within its node limits",
				    (int)n.usable, (int)n.ok,
				    kc && kc->match >= 0 ? " with one matching-OR alternative"
				                         : "");
			else
				snprintf(
				    why, sizeof(why),
				    "%d usable GPUs on %d eligible nodes, but no set meets the "
				    "node count limits",
				    (int)n.usable, (int)n.ok);
		}
		return gp__errorf(err, GP_ENOFIT,
		                  "no placement for %d GPUs%s%s: %s; of %d nodes %d are not in the "
		                  "partition, %d down/drained/reserved, %d excluded, %d lack the "
		                  "constraint%s%s, %d have too few free GPUs%s%s",
		                  (int)r->gpus, need, pname, why, (int)c->nnodes, (int)n.part,
		                  (int)n.state, (int)n.excl, (int)n.feat, kc ? " " : "",
		                  kc ? kc->text : "", (int)n.gpus,
		                  r->exclusive ? " or are in use (--exclusive)" : "", pwhy);
	}
	for (i = 0; i < ws->npool; i++)
		ws->out[i] = ws->pool[i]->cand;
	sort_any(ws->out, (size_t)ws->npool, sizeof(*ws->out), cmp_cand);
	*cands = ws->out;
	*ncands = ws->npool;
	return GP_OK;
}
