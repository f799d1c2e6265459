/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * candidates.h - candidate node sets for a job request (internal).
 *
 * The search finds the smallest fabric domains that can hold the job and
 * proposes one best-fit node set inside each, smallest domain first:
 * cross-node NVLink domain, then leaf switch, then each higher switch level
 * up to the root (a disconnected synthetic root over a forest never holds a
 * job that spans its children).  Each candidate is scored by a callback
 * (the cost model, or gp__score_default) and the list comes back sorted by
 * score, lower first, ties broken by the order of generation (which is
 * deterministic: domain size, then tightest fit, then index).
 *
 * A node is eligible when it is in the request's partition (every node when
 * the cluster has no partitions), not DOWN, DRAIN or RESERVED (requests
 * carry no reservation), not in --exclude, satisfies the constraint (for a
 * matching-OR constraint: the alternative being searched; each alternative
 * is searched separately and its candidates carry its number), and has
 * enough free GPUs: at least gpus_per_node when set, at least one
 * otherwise, and nothing allocated at all for an exclusive job.  With a
 * switch tree, nodes outside it are never used (Slurm's topology/tree
 * cannot place multi-node jobs on them), and an NVLink domain whose nodes
 * lie under different children of a disconnected root is not searched.
 *
 * Everything a search needs lives in a gp_search_ws_t made once per
 * cluster: the search itself allocates nothing.  A workspace serves one
 * search at a time (one per thread).
 */
#ifndef GP_CANDIDATES_H
#define GP_CANDIDATES_H

#include <stdint.h>

#include "model.h"
#include "request.h"

/* The kind of domain a candidate was chosen inside. */
typedef enum gp_domain_kind {
	GP_DOM_NVL = 0,     /* a cross-node NVLink domain (domain = nvl index) */
	GP_DOM_SWITCH = 1,  /* a switch subtree (domain = switch index) */
	GP_DOM_CLUSTER = 2, /* no topology: the whole cluster (domain = -1) */
} gp_domain_kind_t;

typedef struct gp_candidate {
	const int32_t *nodes;     /* node indices, ascending; owned by the workspace */
	const uint32_t *gpu_mask; /* per node: the job's GPUs on it; owned by the workspace */
	int32_t nnodes;
	int32_t ngpus;
	gp_domain_kind_t kind; /* the domain searched */
	int32_t domain;        /* nvl or switch index, -1 for the cluster */
	int32_t top_switch;    /* lowest switch enclosing all nodes, -1 if none */
	int32_t level;         /* its level (0 = leaf), -1 if none */
	bool one_nvl;          /* all nodes in one cross-node NVLink domain */
	int32_t nleaves;       /* leaf switches spanned */
	int32_t nracks;        /* racks touched */
	int32_t split_nodes;   /* nodes whose GPUs span more than one NVLink island */
	/*
	 * Fragmentation cost: what the candidate breaks of what was whole.
	 *   frag = broken_nodes + 4 * broken_leaves + 4 * broken_nvl
	 * broken_nodes: nodes with every GPU free before and some but not all
	 *   of them taken;
	 * broken_leaves / broken_nvl: leaf switches / NVLink domains whose
	 *   nodes were all up and completely free before and of which the
	 *   candidate takes some but not all GPUs.
	 * Taking a whole node, leaf or domain breaks nothing.
	 */
	int32_t frag;
	int32_t alt;  /* matching-OR alternative, -1 if the constraint has none */
	double score; /* from the scoring callback, lower is better */
	uint32_t seq; /* generation order (the tie-break) */
} gp_candidate_t;

/*
 * Score one candidate: write it to *score (lower is better) and return 0,
 * or return a negative gp_err code to abort the search (the code is
 * returned by gp__candidates_search).  arg is the caller's.
 */
typedef int (*gp_score_fn)(void *arg, const gp_candidate_t *cand, double *score);

/*
 * The score without the cost model, from the shape of the set alone:
 *   1e6 * span + 1e4 * (nleaves - 1) + 1e2 * (nnodes - 1) + 10 * frag
 *   + 5 * split_nodes + (nracks - 1)
 * where span = 0 for one NVLink domain, 1 + level of the enclosing switch
 * otherwise, and 1 + nlevels when no switch encloses the set.  arg unused.
 */
int gp__score_default(void *arg, const gp_candidate_t *cand, double *score);

/*
 * The fragmentation cost (gp_candidate_t.frag) of taking mask[i] GPUs of
 * nodes[i] (n distinct nodes) in state s, for any set, not only the
 * search's: what gp__decide_rescore() scores a set the user names with.
 */
int32_t gp__candidate_frag(const gp_cluster_t *c, const gp_state_t *s, const int32_t *nodes,
                           const uint32_t *mask, int32_t n);

typedef struct gp_search_ws gp_search_ws_t;

/*
 * Make a workspace for searches on c returning up to kmax candidates
 * (1..64).  c must outlive it.  *out is NULL on failure; free with
 * gp__search_ws_destroy() (NULL is a no-op).
 */
int gp__search_ws_create(const gp_cluster_t *c, int kmax, gp_search_ws_t **out, gp_error_t *err);
void gp__search_ws_destroy(gp_search_ws_t *ws);

/*
 * Power as a constraint of the next searches with ws: at most budget[q]
 * GPUs of the job may sit in rack q (c->nracks entries; < 0 = no limit),
 * so every set the search makes fits each rack's power headroom as the
 * caller counted it (gp__decide: headroom / watts one of the rack's GPUs
 * adds).  A node's usable GPUs are capped by its rack's budget (a node
 * whose rack cannot give gpus_per_node, or one GPU, is not eligible and
 * GP_ENOFIT counts it), and within one set the nodes of a rack share it.
 * budget is borrowed until replaced; NULL removes the limit.  headroom
 * (may be NULL; c->nracks entries, borrowed likewise) orders racks for the
 * power-spread alternative: the most headroom first (else the budget).
 *
 * Besides the best-fit set each domain then also yields, for jobs of up to
 * 64 nodes: a balanced set (even GPUs per node), a power-spread set (the
 * racks with the most headroom first, one node per rack per round), and on
 * clusters with NVLink domains or several rails, a set that fills the
 * fewest NVLink domains and one whose nodes give the job the same GPU
 * indices (the same rails), so the scorer decides between compactness,
 * power and rail alignment.
 */
void gp__search_ws_set_rack_budget(gp_search_ws_t *ws, const int32_t *budget,
                                   const double *headroom);

/* With on, the next searches with ws make only the best-fit set per
 * domain (no alternatives): a quick look, as for a later state. */
void gp__search_ws_set_best_fit_only(gp_search_ws_t *ws, bool on);

/*
 * GPUs of the job's innermost parallel group, which should stay on one node
 * (its tensor-parallel degree, say); 1, the default, for none.  With more
 * than 1 a search first makes the best fit in whole groups: each node gives
 * its usable GPUs rounded down to a multiple of gpus (a node with 3 free
 * GPUs gives a TP-8 job none), in the smallest domain that holds the job so
 * (a second such domain when the first yields no set), so that no group is
 * split across nodes; then the usual sets.  Not for requests with
 * --gpus-per-node, node counts, --nodelist or --segment, nor when gpus
 * does not divide the job's GPUs.  At most 64.
 */
void gp__search_ws_set_granule(gp_search_ws_t *ws, int32_t gpus);

/*
 * With on, the next search may reuse the eligibility pass of the last one
 * (the same request, without matching-OR alternatives), computing again
 * only the nodes reported by gp__search_ws_changed() since and the racks
 * whose budget changed: for a state made from the last one by freeing or
 * taking GPUs, as the wait path's future states are.  Off (the default)
 * forgets what was reported; every search then reads the whole state.
 * When more nodes changed than half the cluster, a search reads
 * the whole state anyway.
 */
void gp__search_ws_reuse(gp_search_ws_t *ws, bool on);

/* The state at node changed since the last search (ignored unless reuse
 * is on). */
void gp__search_ws_changed(gp_search_ws_t *ws, int32_t node);

/*
 * Search up to k (1..kmax) candidates for r on cluster c in state s.
 * score NULL means gp__score_default.  On success *cands points to *ncands
 * (>= 1) candidates sorted by score, valid until the next search with ws.
 * GP_ENOFIT when nothing fits, with the reason in err (how many nodes each
 * rule excluded, or that no connected domain holds the job); GP_EINVAL for
 * an invalid request (gp__request_check).  With a matching-OR constraint
 * each alternative yields up to k candidates (one O(nnodes) pass each) and
 * the best k of all are returned.  c, s and r are only read; ws is
 * modified (one search per workspace at a time).
 */
int gp__candidates_search(const gp_cluster_t *c, const gp_state_t *s, const gp_request_t *r, int k,
                          gp_score_fn score, void *score_arg, gp_search_ws_t *ws,
                          const gp_candidate_t **cands, int *ncands, gp_error_t *err);

#endif /* GP_CANDIDATES_H */
