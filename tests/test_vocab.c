/* test_vocab.c — the exact strings of DESIGN §1 round-trip; nothing else parses. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "vocab.h"

static void test_modes_round_trip_exactly(void **state)
{
	(void)state;
	assert_int_equal(warden_mode_parse("read-only"), WARDEN_SANDBOX_READ_ONLY);
	assert_int_equal(warden_mode_parse("workspace-write"), WARDEN_SANDBOX_WORKSPACE_WRITE);
	assert_int_equal(warden_mode_parse("danger-full-access"), WARDEN_SANDBOX_DANGER_FULL_ACCESS);
	assert_string_equal(warden_mode_name(WARDEN_SANDBOX_READ_ONLY), "read-only");
	assert_string_equal(warden_mode_name(WARDEN_SANDBOX_DANGER_FULL_ACCESS), "danger-full-access");
}

static void test_unknown_or_near_miss_strings_are_rejected(void **state)
{
	(void)state;
	assert_int_equal(warden_mode_parse("Read-Only"), -1);
	assert_int_equal(warden_mode_parse("read-only "), -1);
	assert_int_equal(warden_mode_parse(""), -1);
	assert_int_equal(warden_mode_parse(NULL), -1);
	assert_int_equal(warden_policy_parse("always"), -1);
	assert_int_equal(warden_outcome_parse("allowed"), -1);
	assert_null(warden_mode_name(0));
	assert_null(warden_outcome_name(99));
}

static void test_outcomes_and_policies_round_trip(void **state)
{
	static const char *outcomes[] = { "allowed-once", "rejected", "cancelled", "unavailable" };
	size_t i;

	(void)state;
	for (i = 0; i < 4; i++)
		assert_string_equal(warden_outcome_name(warden_outcome_parse(outcomes[i])), outcomes[i]);
	assert_string_equal(warden_policy_name(warden_policy_parse("ask")), "ask");
	assert_string_equal(warden_policy_name(warden_policy_parse("never")), "never");
	assert_string_equal(warden_enforcement_name(warden_enforcement_parse("partial")), "partial");
}

static void test_network_knob_round_trips_and_nothing_else_parses(void **state)
{
	(void)state;
	assert_int_equal(warden_network_parse("restricted"), WARDEN_NETWORK_RESTRICTED);
	assert_int_equal(warden_network_parse("enabled"), WARDEN_NETWORK_ENABLED);
	assert_string_equal(warden_network_name(WARDEN_NETWORK_RESTRICTED), "restricted");
	assert_string_equal(warden_network_name(WARDEN_NETWORK_ENABLED), "enabled");
	assert_int_equal(warden_network_parse("allowlist"), WARDEN_NETWORK_ALLOWLIST);
	assert_string_equal(warden_network_name(WARDEN_NETWORK_ALLOWLIST), "allowlist");
	assert_int_equal(warden_network_parse("Enabled"), -1);
	assert_int_equal(warden_network_parse("on"), -1);
	assert_int_equal(warden_network_parse(""), -1);
	assert_int_equal(warden_network_parse(NULL), -1);
	assert_null(warden_network_name(0));
	assert_null(warden_network_name(4));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modes_round_trip_exactly),
		cmocka_unit_test(test_unknown_or_near_miss_strings_are_rejected),
		cmocka_unit_test(test_outcomes_and_policies_round_trip),
		cmocka_unit_test(test_network_knob_round_trips_and_nothing_else_parses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
