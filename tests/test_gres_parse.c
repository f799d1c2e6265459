/* SPDX-License-Identifier: GPL-2.0-or-later */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tres),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
