/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ckpt.c - checkpoint interval, target, offset and buddy for one job. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ckpt.h"

/* Fraction of a shared target's bandwidth always left to a new job, so a
 * saturated target gives a long (not infinite) write time. */
#define GP_CKPT_MIN_SHARE 0.05

/* --signal margin: one write plus 25 % and 30 s.  Slurm may deliver the
 * signal up to 60 s early (sbatch(1), --signal), never late, so the margin
 * only covers variance of the write itself.  An assumption. */
#define GP_CKPT_SIGNAL_FACTOR 1.25
#define GP_CKPT_SIGNAL_PAD_S 30.0
#define GP_CKPT_SIGNAL_MAX_S 65535.0 /* Slurm keeps the lead time in 16 bits */

double gp__ckpt_daly(double delta, double m)
{
	double x;

	if (delta <= 0 || m <= 0)
		return 0;
	if (delta >= 2.0 * m)
		return m;
	/* Daly, "A higher order estimate of the optimum checkpoint interval for
	 * restart dumps", FGCS 22(3), 2006, eq. 37 (notes/calibration.md 3). */
	x = delta / (2.0 * m);
	return sqrt(2.0 * delta * m) * (1.0 + sqrt(x) / 3.0 + x / 9.0) - delta;
}

double gp__ckpt_waste(double tau, double delta, double r, double m)
{
	double wall;

	if (tau <= 0 || m <= 0)
		return 1.0;
	/* Daly 2006, eq. 13: expected wall time to do T_s of work in segments of
	 * tau with dump time delta, restart R, exponential failures of mean M:
	 * T_w = M e^{R/M} (e^{(tau+delta)/M} - 1) T_s / tau.  Waste = 1 - T_s/T_w. */
	wall = m * exp(r / m) * expm1((tau + delta) / m) / tau;
	if (!isfinite(wall) || wall <= 1.0)
		return isfinite(wall) ? 0.0 : 1.0;
	return 1.0 - 1.0 / wall;
}

double gp__ckpt_run_waste(double T, double P, double delta, double r, double m,
                          int32_t *count)
{
	double k = 0, work, last, wall, seg;

	if (count)
		*count = 0;
	if (!(T > 0))
		return 0.0;
	if (P > delta && P < T) {
		/* checkpoints that end strictly before the limit */
		k = ceil(T / P) - 1;
		if (k < 0)
			k = 0;
	}
	work = T - k * delta;
	last = work - k * (P - delta);
	if (last < 0)
		last = 0;
	if (count)
		*count = (int32_t)fmin(k, 2e9);
	if (!(m > 0) || !isfinite(m))
		return 1.0 - work / T; /* no failures: the writes alone */
	/* each segment of work w followed by its dump: M e^{R/M} (e^{(w+d)/M} - 1)
	 * (Daly 2006, eq. 13 with T_s = tau); the last one has no dump */
	seg = m * exp(r / m);
	wall = k * seg * expm1(P / m) + seg * expm1(last / m);
	if (!isfinite(wall) || !(wall > 0))
		return 1.0;
	return fmax(0.0, 1.0 - work / wall);
}

double gp__ckpt_mttf(const gp_cluster_t *c, int32_t nnodes)
{
	/* site.node_failures_per_1k_days: failures per 1,000 node-days
	 * (default from Llama 3, see cluster.c); job MTTF = 1 / (N r)
	 * (notes/calibration.md 3, Meta RSC). */
	double r = c->site.node_failures_per_1k_days / (1000.0 * 86400.0);

	if (nnodes < 1 || r <= 0)
		return INFINITY;
	return 1.0 / ((double)nnodes * r);
}

/* Path length from node n up to switch s, or -1 if s is not an ancestor. */
static int up_distance(const gp_cluster_t *c, int32_t n, int32_t s)
{
	int32_t w = c->nodes[n].leaf;
	int d = 1;

	while (w >= 0) {
		if (w == s)
			return d;
		w = c->switches[w].parent;
		d++;
	}
	return -1;
}

int gp__node_hops(const gp_cluster_t *c, int32_t a, int32_t b)
{
	int32_t w;

	if (a == b)
		return 0;
	if (c->nodes[a].leaf < 0 || c->nodes[b].leaf < 0)
		return -1;
	/* lowest common ancestor: walk a's path, test each switch on b's */
	for (w = c->nodes[a].leaf; w >= 0; w = c->switches[w].parent) {
		int db = up_distance(c, b, w);

		if (db >= 0) {
			if (c->switches[w].disconnected)
				return -1;
			return up_distance(c, a, w) + db;
		}
	}
	return -1;
}

static bool reaches(const gp_storage_t *st, const gp_ckpt_job_t *job)
{
	int32_t i, j;

	if (!st->nodes)
		return true;
	for (i = 0; i < job->nnodes; i++) {
		for (j = 0; j < st->nnodes; j++)
			if (st->nodes[j] == job->nodes[i])
				break;
		if (j == st->nnodes)
			return false;
	}
	return true;
}

/* Fraction of time target (storage, rack) is busy with bookings. */
static double busy_share(const gp_ckpt_booking_t *b, int32_t nb, int32_t storage, int32_t rack)
{
	double u = 0;
	int32_t i;

	for (i = 0; i < nb; i++)
		if (b[i].storage == storage && (rack < 0 || b[i].scope_index == rack) &&
		    b[i].interval_s > 0)
			u += b[i].write_s / b[i].interval_s;
	return u;
}

static double share_left(double busy)
{
	double left = 1.0 - busy;

	return left < GP_CKPT_MIN_SHARE ? GP_CKPT_MIN_SHARE : left;
}

/*
 * Write and read time of the job's checkpoint on target st.  Node scope:
 * every node writes its shard to its own device in parallel.  Rack scope:
 * each rack's buffer takes the shards of the job's nodes in it, sharing it
 * with bookings on that rack; the slowest rack decides.  Cluster scope: the
 * whole checkpoint through the bandwidth left by other bookings.
 * Returns false when the target cannot be used (a node without a rack).
 */
static bool transfer_time(const gp_cluster_t *c, const gp_ckpt_job_t *job, int32_t si,
                          const gp_ckpt_booking_t *b, int32_t nb, double *write_s,
                          double *read_s, double *gbps, int32_t *rack_out)
{
	const gp_storage_t *st = &c->storage[si];
	double bytes = job->ckpt_bytes, w = st->write_gbps * 1e9;
	double rd = (st->read_gbps > 0 ? st->read_gbps : st->write_gbps) * 1e9;
	int32_t i, j;

	*rack_out = -1;
	if (w <= 0)
		return false;
	switch (st->scope) {
	case GP_SCOPE_NODE:
		*write_s = bytes / job->nnodes / w;
		*read_s = bytes / job->nnodes / rd;
		*gbps = st->write_gbps * job->nnodes;
		return true;
	case GP_SCOPE_RACK: {
		double worst = 0, worst_read = 0;

		for (i = 0; i < job->nnodes; i++) {
			int32_t r = c->nodes[job->nodes[i]].rack, in_rack = 0;
			double share, t;

			if (r < 0)
				return false;
			for (j = 0; j < job->nnodes; j++)
				in_rack += c->nodes[job->nodes[j]].rack == r;
			share = share_left(busy_share(b, nb, si, r));
			t = bytes * in_rack / job->nnodes / (w * share);
			if (t > worst) {
				worst = t;
				*rack_out = r;
			}
			t = bytes * in_rack / job->nnodes / rd;
			if (t > worst_read)
				worst_read = t;
		}
		*write_s = worst;
		*read_s = worst_read;
		*gbps = worst > 0 ? bytes / worst / 1e9 : 0;
		return true;
	}
	case GP_SCOPE_CLUSTER:
	default: {
		double share = share_left(busy_share(b, nb, si, -1));

		*write_s = bytes / (w * share);
		*read_s = bytes / rd;
		*gbps = st->write_gbps * share;
		return true;
	}
	}
}

/* Length of the intersection of circular windows [s1, s1+w1) and
 * [s2, s2+w2) on a circle of circumference h (all within [0, h)). */
static double circ_overlap(double s1, double w1, double s2, double w2, double h)
{
	double total = 0;
	int k;

	/* unroll both windows onto [0, 2h) and compare the shifted copies */
	for (k = -1; k <= 1; k++) {
		double a0 = s1, a1 = s1 + w1, b0 = s2 + k * h, b1 = s2 + w2 + k * h;
		double lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;

		if (hi > lo)
			total += hi - lo;
	}
	return total;
}

/* Total overlap of the job's windows (offset o, period p, length w) with
 * the bookings that share its target, over one hyperperiod. */
static double overlap_with(const gp_ckpt_booking_t *b, int32_t nb, int32_t storage,
                           const int32_t *racks, int32_t nracks, double o, double p,
                           double w, double h)
{
	double total = 0;
	int32_t i, r;

	for (i = 0; i < nb; i++) {
		bool shares = b[i].storage == storage;
		double t, u;

		if (shares && nracks > 0) {
			shares = false;
			for (r = 0; r < nracks; r++)
				shares |= b[i].scope_index == racks[r];
		}
		if (!shares || b[i].interval_s <= 0)
			continue;
		for (t = o; t < h; t += p)
			for (u = fmod(b[i].offset_s, b[i].interval_s); u < h; u += b[i].interval_s)
				total += circ_overlap(t, w, u, b[i].write_s, h);
	}
	return total;
}

/* Choose the harmonic period and offset with disjoint (or least
 * overlapping) write windows. */
static void schedule(const gp_cluster_t *c, const gp_ckpt_job_t *job, int32_t si,
                     const gp_ckpt_booking_t *b, int32_t nb, gp_ckpt_plan_t *plan)
{
	int32_t racks[64], nracks = 0, i, j;
	double p = plan->interval_s, w = plan->write_s, h = p, best = INFINITY, best_o = 0;

	if (c->storage[si].scope == GP_SCOPE_NODE) {
		plan->offset_s = 0; /* node-local devices are not shared */
		return;
	}
	if (c->storage[si].scope == GP_SCOPE_RACK) {
		for (i = 0; i < job->nnodes && nracks < 64; i++) {
			int32_t r = c->nodes[job->nodes[i]].rack;

			for (j = 0; j < nracks && racks[j] != r; j++)
				;
			if (j == nracks)
				racks[nracks++] = r;
		}
	}
	for (i = 0; i < nb; i++)
		if (b[i].storage == si && b[i].interval_s > h)
			h = b[i].interval_s;
	/* Candidate offsets: 0 and the end of every booked window. */
	for (i = -1; i < nb; i++) {
		double u, start = 0, step = p;

		if (i >= 0) {
			if (b[i].storage != si || b[i].interval_s <= 0)
				continue;
			start = fmod(b[i].offset_s + b[i].write_s, b[i].interval_s);
			step = b[i].interval_s;
		}
		for (u = start; u < h; u += step) {
			double o = fmod(u, p), ov;

			ov = overlap_with(b, nb, si, racks, nracks, o, p, w, h);
			if (ov < best - 1e-9 || (fabs(ov - best) <= 1e-9 && o < best_o)) {
				best = ov;
				best_o = o;
			}
			if (i < 0)
				break;
		}
	}
	plan->offset_s = best_o;
	plan->overlap = best > 1e-9;
}

/* Node cand as the buddy of writer (rack wr) if it is in another rack and
 * closer than the buddy so far, or (by_index) as close and of a lower
 * index. */
static void consider(const gp_cluster_t *c, int32_t writer, int32_t wr, int32_t cand,
                     bool by_index, gp_ckpt_plan_t *plan)
{
	int hops;

	if (c->nodes[cand].rack < 0 || c->nodes[cand].rack == wr)
		return;
	hops = gp__node_hops(c, writer, cand);
	if (hops < 0)
		return;
	if (plan->buddy < 0 || hops < plan->buddy_hops ||
	    (by_index && hops == plan->buddy_hops && cand < plan->buddy)) {
		plan->buddy = cand;
		plan->buddy_hops = hops;
	}
}

/* Buddy: a node in another rack than the writer, fewest hops; the job's own
 * nodes first (their memory already holds the job), then any other node,
 * the lowest index among equals.  The other nodes are searched up the
 * writer's switches (each switch's subtree is a range of the DFS order),
 * not over the whole cluster, which at 65,536 nodes cost a decision over a
 * millisecond when the closest lay far from node 0. */
static void choose_buddy(const gp_cluster_t *c, const gp_ckpt_job_t *job, gp_ckpt_plan_t *plan)
{
	int32_t writer = job->nodes[0], wr = c->nodes[writer].rack, i, w, below = -1;
	int up = 1;

	plan->buddy = -1;
	plan->buddy_hops = -1;
	if (wr < 0)
		return;
	/* the job's own: the first of the fewest hops in its order */
	for (i = 0; i < job->nnodes; i++)
		consider(c, writer, wr, job->nodes[i], false, plan);
	if (plan->buddy >= 0)
		return;
	if (!c->node_order) {
		/* no DFS order (a cluster not finished): every node */
		for (i = 0; i < c->nnodes; i++)
			consider(c, writer, wr, i, true, plan);
		return;
	}
	/* w: the writer's ancestor at distance up (its leaf at 1); a node
	 * first met under w (not under the child below it) is up plus its own
	 * distance to w hops away: at least up + 1 if w lists nodes itself,
	 * else up + 2 (its leaf is a switch below w) */
	for (w = c->nodes[writer].leaf; w >= 0 && !c->switches[w].disconnected;
	     below = w, w = c->switches[w].parent, up++) {
		const gp_switch_t *sw = &c->switches[w];
		const gp_switch_t *bl = below >= 0 ? &c->switches[below] : NULL;

		if (plan->buddy >= 0 && plan->buddy_hops < up + (sw->nnodes > 0 ? 1 : 2))
			return;
		for (i = sw->first; i < sw->first + sw->count; i++)
			if (!bl || i < bl->first || i >= bl->first + bl->count)
				consider(c, writer, wr, c->node_order[i], true, plan);
	}
}

/*
 * With a time limit T: the harmonic periods that end before T (from the
 * base up to the one above Daly's optimum) and no periodic checkpoint,
 * by the expected waste of this finite run.
 */
static void choose_period_limited(gp_ckpt_plan_t *p, double T)
{
	double best, w;
	int32_t k, n;

	p->interval_s = 0;
	best = gp__ckpt_run_waste(T, 0, p->write_s, p->restart_s, p->mttf_s, &p->count);
	for (k = 0; k <= 40; k++) {
		double period = GP_CKPT_BASE_S * ldexp(1.0, k);

		if (period >= T)
			break;
		if (period <= p->write_s)
			continue;
		w = gp__ckpt_run_waste(T, period, p->write_s, p->restart_s, p->mttf_s, &n);
		if (w < best - 1e-12) {
			best = w;
			p->interval_s = period;
			p->count = n;
		}
	}
	p->waste = best;
}

/* Best harmonic period near Daly's optimum for this target. */
static void choose_period(gp_ckpt_plan_t *p)
{
	double ideal = p->daly_s + p->write_s, best = INFINITY;
	int k, k0;

	k0 = ideal > GP_CKPT_BASE_S ? (int)floor(log2(ideal / GP_CKPT_BASE_S)) : 0;
	p->interval_s = GP_CKPT_BASE_S;
	for (k = k0 - 1; k <= k0 + 1; k++) {
		double period, waste;

		if (k < 0 || k > 40)
			continue;
		period = GP_CKPT_BASE_S * ldexp(1.0, k);
		if (period <= p->write_s)
			continue;
		waste = gp__ckpt_waste(period - p->write_s, p->write_s, p->restart_s, p->mttf_s);
		if (waste < best) {
			best = waste;
			p->interval_s = period;
		}
	}
	while (p->interval_s <= p->write_s) /* a write longer than every candidate */
		p->interval_s *= 2;
	p->waste = gp__ckpt_waste(p->interval_s - p->write_s, p->write_s, p->restart_s, p->mttf_s);
}

int gp__ckpt_plan(const gp_cluster_t *c, const gp_ckpt_job_t *job,
                  const gp_ckpt_booking_t *bookings, int32_t nbookings,
                  gp_ckpt_plan_t *plan, gp_error_t *err)
{
	double restart = job && job->restart_s >= 0 ? job->restart_s : c ? c->site.restart_s : 0;
	gp_ckpt_plan_t best, cand;
	int32_t si, i;

	if (plan) {
		memset(plan, 0, sizeof(*plan));
		plan->storage = plan->scope_index = plan->buddy = plan->buddy_hops = -1;
	}
	if (!c || !job || !plan || (nbookings > 0 && !bookings))
		return gp__errorf(err, GP_EINVAL, "checkpoint plan: missing argument");
	if (job->nnodes < 1 || !job->nodes)
		return gp__errorf(err, GP_EINVAL, "checkpoint plan: job %u has no nodes", job->job_id);
	if (!(job->ckpt_bytes > 0) || !isfinite(job->ckpt_bytes))
		return gp__errorf(err, GP_EINVAL, "checkpoint plan: job %u: checkpoint size %g is not positive",
		                  job->job_id, job->ckpt_bytes);
	for (i = 0; i < job->nnodes; i++)
		if (job->nodes[i] < 0 || job->nodes[i] >= c->nnodes)
			return gp__errorf(err, GP_EINVAL, "checkpoint plan: job %u: node index %d out of range",
			                  job->job_id, job->nodes[i]);

	best = *plan;
	best.waste = INFINITY;
	for (si = 0; si < c->nstorage; si++) {
		double read_s;

		if (!reaches(&c->storage[si], job))
			continue;
		cand = *plan;
		cand.storage = si;
		cand.mttf_s = gp__ckpt_mttf(c, job->nnodes);
		if (!transfer_time(c, job, si, bookings, nbookings, &cand.write_s, &read_s, &cand.gbps,
		                   &cand.scope_index))
			continue;
		cand.restart_s = restart + read_s;
		cand.daly_s = isfinite(cand.mttf_s) ? gp__ckpt_daly(cand.write_s, cand.mttf_s) : INFINITY;
		if (job->run_s > 0) {
			choose_period_limited(&cand, job->run_s);
		} else if (!isfinite(cand.daly_s)) {
			/* no failures expected: checkpoint as rarely as the base allows */
			cand.interval_s = GP_CKPT_BASE_S * ldexp(1.0, 20);
			cand.waste = 0;
		} else {
			choose_period(&cand);
		}
		/* least waste; ties to the faster write, then the lower index */
		if (cand.waste < best.waste - 1e-12 ||
		    (fabs(cand.waste - best.waste) <= 1e-12 && cand.write_s < best.write_s))
			best = cand;
	}
	if (best.storage < 0) {
		*plan = best;
		plan->waste = 0;
		choose_buddy(c, job, plan);
		return GP_OK;
	}
	if (best.interval_s > 0)
		schedule(c, job, best.storage, bookings, nbookings, &best);
	choose_buddy(c, job, &best);
	best.signal_lead_s = ceil(best.write_s * GP_CKPT_SIGNAL_FACTOR + GP_CKPT_SIGNAL_PAD_S);
	if (best.signal_lead_s > GP_CKPT_SIGNAL_MAX_S)
		best.signal_lead_s = GP_CKPT_SIGNAL_MAX_S;
	*plan = best;
	return GP_OK;
}

void gp__ckpt_booking_of(const gp_ckpt_plan_t *plan, uint32_t job_id, gp_ckpt_booking_t *out)
{
	memset(out, 0, sizeof(*out));
	out->job_id = job_id;
	out->storage = plan->storage;
	out->scope_index = plan->scope_index;
	out->interval_s = plan->interval_s;
	out->offset_s = plan->offset_s;
	out->write_s = plan->write_s;
}
