/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_slots.c - plugin/slots.c, the refcounted slot the plugin keeps its
 * configuration and its cluster state in (the plugin's files compiled in,
 * as in test_plugin_apply):
 *   - an object published into a slot lives while anyone holds a
 *     reference: replaced, it is released once, when the last reference
 *     goes, never before; each publication has a new generation;
 *   - readers taking and dropping references while the slot is replaced
 *     under them (threads) see only live objects, and every object is
 *     released exactly once;
 *   - a configuration whose last reference goes while the plugin's thread
 *     owns the graveyard is not freed on the spot (its telemetry poller may
 *     wait for a source's time-out, which a submission must never do): it
 *     waits in the graveyard for graveyard_empty().
 */
#include "config.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "job_submit_gpuplace.h"

#include <cmocka.h>

#define LIVE 0x5eedu
#define DEAD 0xdeadu

/* An object of a test slot: its header first, as gp_conf and gp_snap. */
struct obj {
	struct gp_ref ref;
	unsigned magic;           /* LIVE until released, then DEAD */
	int releases;
};

static void obj_release(struct gp_ref *r)
{
	struct obj *o = (struct obj *)r;

	o->magic = DEAD;
	o->releases++;
}

static void test_slot_refcount(void **unused)
{
	struct gp_slot s = GP_SLOT_INIT(obj_release);
	struct obj a = { .magic = LIVE }, b = { .magic = LIVE };
	struct gp_ref *r, *r2;
	uint64_t gen_a;

	assert_true(slot_empty(&s));
	assert_null(slot_get(&s));
	slot_publish(&s, &a.ref);
	assert_false(slot_empty(&s));
	gen_a = a.ref.gen;
	assert_true(gen_a > 0);
	r = slot_get(&s);
	assert_ptr_equal(r, &a.ref);
	slot_hold(&s, r); /* a second reference on the same object */
	/* replaced while two references are out: a stays */
	slot_publish(&s, &b.ref);
	assert_true(b.ref.gen > gen_a);
	assert_int_equal(a.magic, LIVE);
	assert_int_equal(a.releases, 0);
	r2 = slot_get(&s);
	assert_ptr_equal(r2, &b.ref);
	slot_put(&s, r);
	assert_int_equal(a.releases, 0);
	slot_put(&s, r); /* the last one */
	assert_int_equal(a.magic, DEAD);
	assert_int_equal(a.releases, 1);
	/* b: the slot's reference and r2 */
	slot_put(&s, r2);
	assert_int_equal(b.releases, 0);
	slot_put(&s, NULL); /* a no-op */
	slot_publish(&s, &a.ref); /* the slot's reference on b goes */
	assert_int_equal(b.releases, 1);
	assert_int_equal(a.releases, 1);
	a.magic = LIVE;
	r = slot_get(&s);
	slot_put(&s, r);
	assert_int_equal(a.magic, LIVE);
}

/* ---- readers against a publisher ---------------------------------------------- */

#define NOBJ 2000
#define NREADERS 3

static struct gp_slot race_slot = GP_SLOT_INIT(obj_release);
static struct obj objs[NOBJ];
static volatile int stop;
static volatile int seen_dead;

static void *reader(void *unused)
{
	(void)unused;
	while (!stop) {
		struct gp_ref *r = slot_get(&race_slot);

		if (r && ((struct obj *)r)->magic != LIVE)
			seen_dead = 1;
		slot_put(&race_slot, r);
	}
	return NULL;
}

static void test_slot_readers_race(void **unused)
{
	pthread_t t[NREADERS];
	int i;

	for (i = 0; i < NOBJ; i++)
		objs[i].magic = LIVE;
	for (i = 0; i < NREADERS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, reader, NULL), 0);
	for (i = 0; i < NOBJ; i++)
		slot_publish(&race_slot, &objs[i].ref);
	stop = 1;
	for (i = 0; i < NREADERS; i++)
		pthread_join(t[i], NULL);
	assert_false(seen_dead);
	for (i = 0; i < NOBJ - 1; i++)
		if (objs[i].releases != 1)
			fail_msg("object %d released %d times", i, objs[i].releases);
	assert_int_equal(objs[NOBJ - 1].releases, 0); /* the current one */
	assert_int_equal(objs[NOBJ - 1].magic, LIVE);
}

/* ---- the configuration's graveyard --------------------------------------------- */

static struct gp_conf *conf_new(void)
{
	struct gp_conf *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	return c; /* no cluster, no poller: conf_free frees the struct alone */
}

static void test_conf_graveyard(void **unused)
{
	struct gp_conf *c1 = conf_new(), *c2 = conf_new(), *c3 = conf_new(), *held;

	graveyard_owned_by_thread(true);
	conf_publish(c1);
	held = conf_get();
	assert_ptr_equal(held, c1);
	conf_publish(c2);  /* c1 still held */
	assert_null(c1->next_dead);
	conf_put(held);    /* c1's last reference: into the graveyard */
	conf_publish(c3);  /* c2's last reference: into the graveyard, on c1 */
	assert_ptr_equal(c2->next_dead, c1);
	assert_ptr_equal(conf_get(), c3);
	conf_put(c3);
	graveyard_empty(); /* c1 and c2 freed here (valgrind_plugin.sh style
	                    * leak checks see none left) */
	graveyard_owned_by_thread(false);
	slots_clear();     /* c3: freed by its last put, the thread gone */
	assert_null(conf_get());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slot_refcount),
		cmocka_unit_test(test_slot_readers_race),
		cmocka_unit_test(test_conf_graveyard),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
