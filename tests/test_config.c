/* test_config.c — warden.ini parsing: the model, every error path, hostile files. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vocab.h"
#include "wconfig.h"

static char tmpdir[] = "/tmp/warden-test-config-XXXXXX";

static int setup(void **state)
{
	(void)state;
	if (mkdtemp(tmpdir) == NULL)
		return -1;
	unsetenv("WARDEN_CONFIG");
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static struct warden_config *parse_ok(const char *text)
{
	struct warden_config *cfg = NULL;
	struct warden_error err = { 0, "" };
	int rc = warden_config_parse(text, "/etc/x/warden.ini", &cfg, &err);

	if (rc != 0)
		fail_msg("unexpected error: %s", err.msg);
	assert_non_null(cfg);
	return cfg;
}

/* Parses text expecting a config error whose message contains each of
 * the given fragments. */
static void parse_fails(const char *text, ...)
{
	struct warden_config *cfg = (void *)1;
	struct warden_error err = { 0, "" };
	const char *frag;
	va_list ap;
	int rc = warden_config_parse(text, "/etc/x/warden.ini", &cfg, &err);

	assert_int_equal(rc, -WARDEN_ECONFIG);
	assert_int_equal(err.code, WARDEN_ECONFIG);
	assert_null(cfg);
	va_start(ap, text);
	while ((frag = va_arg(ap, const char *)) != NULL)
		if (strstr(err.msg, frag) == NULL)
			fail_msg("error '%s' lacks '%s'", err.msg, frag);
	va_end(ap);
}

static void write_file(const char *path, const void *data, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
}

static int load(const char *path, struct warden_config **cfg, struct warden_error *err)
{
	*cfg = NULL;
	warden_error_clear(err);
	return warden_config_load(path, cfg, err);
}

/* ------------------------------------------------------------ the model */

static void test_builtin_default_parses_with_default_presets(void **state)
{
	struct warden_config *cfg = NULL;
	struct warden_error err = { 0, "" };

	(void)state;
	assert_int_equal(warden_config_parse(warden_default_config, "<built-in>", &cfg, &err), 0);
	assert_string_equal(cfg->file, "<built-in>");
	assert_int_equal(cfg->default_mode, WARDEN_SANDBOX_WORKSPACE_WRITE);
	assert_int_equal(cfg->approval_policy, WARDEN_POLICY_ASK);
	assert_string_equal(cfg->plugin_dir, WARDEN_PLUGIN_DIR);
	assert_int_equal(cfg->presets_builtin, 1);
	assert_int_equal(cfg->n_presets, 2);
	assert_string_equal(cfg->presets[0].name, "workspace-write");
	assert_int_equal(cfg->presets[0].mode, WARDEN_SANDBOX_WORKSPACE_WRITE);
	assert_int_equal(cfg->presets[0].policy, WARDEN_POLICY_ASK);
	assert_string_equal(cfg->presets[1].name, "danger-full-access");
	assert_int_equal(cfg->presets[1].mode, WARDEN_SANDBOX_DANGER_FULL_ACCESS);
	assert_int_equal(cfg->presets[1].policy, WARDEN_POLICY_NEVER);
	/* The connected client first (built in, in warden's process), then
	 * the terminal. */
	assert_int_equal(cfg->n_answerers, 2);
	assert_string_equal(cfg->answerers[0].name, "client");
	assert_string_equal(cfg->answerers[0].plugin, "client");
	assert_int_equal(cfg->answerers[0].isolation, WARDEN_ISOLATION_INPROC);
	assert_int_equal(cfg->answerers[0].timeout_ms, 300000);
	assert_string_equal(cfg->answerers[1].name, "tty");
	warden_config_free(cfg);
}

static void test_sections_keep_file_order_and_plugin_keys(void **state)
{
	struct warden_config *cfg;

	(void)state;
	cfg = parse_ok("[answerer second]\n"
	               "plugin = rules\n"
	               "allow = bash:git *\n"
	               "deny = bash:rm *\n"
	               "allow = bash:ls\n"
	               "[backend bw]\n"
	               "plugin = /opt/p/bwrap.so\n"
	               "path = /usr/bin/bwrap\n"
	               "[answerer first]\n"
	               "isolation = inproc\n"
	               "timeout_ms = 2500\n"
	               "plugin = exec\n");
	assert_int_equal(cfg->n_answerers, 2);
	assert_string_equal(cfg->answerers[0].name, "second");
	assert_int_equal(cfg->answerers[0].kind, WARDEN_PLUGIN_ANSWERER);
	assert_int_equal(cfg->answerers[0].line, 1);
	assert_int_equal(cfg->answerers[0].plugin_line, 2);
	assert_int_equal(cfg->answerers[0].isolation, WARDEN_ISOLATION_PROCESS);
	assert_int_equal(cfg->answerers[0].kv_count, 3);
	assert_string_equal(cfg->answerers[0].kv[0].key, "allow");
	assert_string_equal(cfg->answerers[0].kv[0].value, "bash:git *");
	assert_int_equal(cfg->answerers[0].kv[0].line, 3);
	assert_string_equal(cfg->answerers[0].kv[1].key, "deny");
	assert_string_equal(cfg->answerers[0].kv[2].value, "bash:ls");
	assert_string_equal(cfg->answerers[1].name, "first");
	assert_string_equal(cfg->answerers[1].plugin, "exec");
	assert_int_equal(cfg->answerers[1].isolation, WARDEN_ISOLATION_INPROC);
	assert_int_equal(cfg->answerers[1].timeout_ms, 2500);
	assert_int_equal(cfg->answerers[1].kv_count, 0);
	assert_int_equal(cfg->n_backends, 1);
	assert_int_equal(cfg->backends[0].kind, WARDEN_PLUGIN_BACKEND);
	assert_string_equal(cfg->backends[0].plugin, "/opt/p/bwrap.so");
	assert_int_equal(cfg->backends[0].kv_count, 1);
	assert_string_equal(cfg->backends[0].kv[0].key, "path");
	warden_config_free(cfg);
}

static void test_warden_keys_and_relative_paths_resolve_against_config_dir(void **state)
{
	struct warden_config *cfg;

	(void)state;
	cfg = parse_ok("; comment\n"
	               "# comment\n"
	               "[warden]\n"
	               "default_mode = danger-full-access\n"
	               "workspace_root = work\n"
	               "approval_policy = never\n"
	               "state_dir = ../state\n"
	               "plugin_dir = /usr/lib/warden/plugins\n"
	               "require_full = yes\n"
	               "durability = none\n");
	assert_string_equal(cfg->file, "/etc/x/warden.ini");
	assert_string_equal(cfg->dir, "/etc/x");
	assert_int_equal(cfg->default_mode, WARDEN_SANDBOX_DANGER_FULL_ACCESS);
	assert_string_equal(cfg->workspace_root, "/etc/x/work");
	assert_int_equal(cfg->approval_policy, WARDEN_POLICY_NEVER);
	assert_string_equal(cfg->state_dir, "/etc/x/../state");
	assert_string_equal(cfg->plugin_dir, "/usr/lib/warden/plugins");
	assert_int_equal(cfg->require_full, 1);
	assert_int_equal(cfg->durability, WARDEN_DURABILITY_NONE);
	warden_config_free(cfg);
}

static void test_defaults_deny_and_state_dir_follows_xdg(void **state)
{
	struct warden_config *cfg;

	(void)state;
	setenv("XDG_STATE_HOME", "/xdg/state", 1);
	cfg = parse_ok("");
	assert_int_equal(cfg->default_mode, WARDEN_SANDBOX_READ_ONLY);
	assert_int_equal(cfg->approval_policy, WARDEN_POLICY_ASK);
	assert_int_equal(cfg->durability, WARDEN_DURABILITY_FSYNC);
	assert_int_equal(cfg->require_full, 0);
	assert_null(cfg->workspace_root);
	assert_string_equal(cfg->state_dir, "/xdg/state/warden/sessions");
	assert_string_equal(cfg->plugin_dir, WARDEN_PLUGIN_DIR);
	warden_config_free(cfg);

	/* A relative XDG_STATE_HOME is invalid per XDG and ignored. */
	setenv("XDG_STATE_HOME", "relative", 1);
	setenv("HOME", "/home/u", 1);
	cfg = parse_ok("");
	assert_string_equal(cfg->state_dir, "/home/u/.local/state/warden/sessions");
	warden_config_free(cfg);
	unsetenv("XDG_STATE_HOME");
}

static void test_configured_presets_replace_the_default_table(void **state)
{
	struct warden_config *cfg;

	(void)state;
	cfg = parse_ok("[preset locked]\n"
	               "sandbox = read-only\n"
	               "approval = never\n"
	               "label = Locked down\n"
	               "description = reads only; asks nobody\n"
	               "[preset auto]\n"
	               "approval = ask\n"
	               "sandbox = workspace-write\n");
	assert_int_equal(cfg->presets_builtin, 0);
	assert_int_equal(cfg->n_presets, 2);
	assert_string_equal(cfg->presets[0].name, "locked");
	assert_int_equal(cfg->presets[0].mode, WARDEN_SANDBOX_READ_ONLY);
	assert_int_equal(cfg->presets[0].policy, WARDEN_POLICY_NEVER);
	assert_string_equal(cfg->presets[0].label, "Locked down");
	assert_string_equal(cfg->presets[0].description, "reads only; asks nobody");
	assert_int_equal(cfg->presets[0].line, 1);
	assert_string_equal(cfg->presets[1].name, "auto");
	assert_null(cfg->presets[1].label);
	warden_config_free(cfg);
}

static void test_indented_line_is_a_key_not_a_continuation(void **state)
{
	struct warden_config *cfg;

	(void)state;
	cfg = parse_ok("[answerer r]\n"
	               "  plugin = rules\n"
	               "  allow = bash:ls\n"
	               "\tdeny = bash:rm\n");
	assert_string_equal(cfg->answerers[0].plugin, "rules");
	assert_int_equal(cfg->answerers[0].kv_count, 2);
	assert_string_equal(cfg->answerers[0].kv[1].key, "deny");
	warden_config_free(cfg);
}

static void test_crlf_and_byte_order_mark_are_accepted(void **state)
{
	struct warden_config *cfg;

	(void)state;
	cfg = parse_ok("\xEF\xBB\xBF[warden]\r\napproval_policy = never\r\n");
	assert_int_equal(cfg->approval_policy, WARDEN_POLICY_NEVER);
	warden_config_free(cfg);
}

static void test_network_knob_defaults_to_restricted_and_sockets_keep_file_order(void **state)
{
	struct warden_config *cfg;

	(void)state;
	cfg = parse_ok("");
	assert_int_equal(cfg->default_network, WARDEN_NETWORK_RESTRICTED);
	assert_int_equal(cfg->n_allow_unix_sockets, 0);
	/* The default table names the network of both presets. */
	assert_int_equal(cfg->presets[0].network, WARDEN_NETWORK_RESTRICTED);
	assert_int_equal(cfg->presets[1].network, WARDEN_NETWORK_ENABLED);
	warden_config_free(cfg);

	cfg = parse_ok("[warden]\n"
	               "default_network = enabled\n"
	               "allow_unix_socket = /run/user/0/ssh-agent.sock\n"
	               "allow_unix_socket = /tmp/b.sock\n"
	               "[preset open]\nsandbox = workspace-write\napproval = ask\nnetwork = enabled\n"
	               "[preset quiet]\nsandbox = read-only\napproval = ask\n"
	               "[preset yolo]\nsandbox = danger-full-access\napproval = never\nnetwork = enabled\n");
	assert_int_equal(cfg->default_network, WARDEN_NETWORK_ENABLED);
	assert_int_equal(cfg->n_allow_unix_sockets, 2);
	assert_string_equal(cfg->allow_unix_sockets[0], "/run/user/0/ssh-agent.sock");
	assert_string_equal(cfg->allow_unix_sockets[1], "/tmp/b.sock");
	assert_int_equal(cfg->presets[0].network, WARDEN_NETWORK_ENABLED);
	/* No key: the preset leaves the network alone. */
	assert_int_equal(cfg->presets[1].network, 0);
	assert_int_equal(cfg->presets[2].network, WARDEN_NETWORK_ENABLED);
	warden_config_free(cfg);
}

static void test_bad_network_values_name_line_key_and_what_to_write(void **state)
{
	char text[256];

	(void)state;
	parse_fails("[warden]\ndefault_network = open\n", ":2:", "default_network = open",
	            "restricted, allowlist, enabled", NULL);
	parse_fails("[warden]\ndefault_network = enabled\ndefault_network = restricted\n",
	            ":3:", "default_network given twice", NULL);
	parse_fails("[warden]\nallow_unix_socket = agent.sock\n", ":2:",
	            "allow_unix_socket = agent.sock", "absolute path", NULL);
	parse_fails("[warden]\nallow_unix_socket = ~/agent.sock\n", ":2:", "'~' is not expanded", NULL);
	parse_fails("[warden]\nallow_unix_socket = /run/../etc/s\n", ":2:", "not a normal path", NULL);
	parse_fails("[warden]\nallow_unix_socket = /run//s\n", ":2:", "not a normal path", NULL);
	parse_fails("[warden]\nallow_unix_socket = /run/s/\n", ":2:", "not a normal path", NULL);
	parse_fails("[warden]\nallow_unix_socket = /run/./s\n", ":2:", "not a normal path", NULL);
	parse_fails("[warden]\nallow_unix_socket = /\n", ":2:", "not a socket", NULL);
	parse_fails("[warden]\nallow_unix_socket = /a.sock\nallow_unix_socket = /a.sock\n",
	            ":3:", "listed twice", NULL);
	parse_fails("[warden]\nallow_unix_socket =\n", ":2:", "empty value", NULL);
	/* 108 bytes do not fit a sockaddr_un with its NUL; 107 do. */
	snprintf(text, sizeof(text), "[warden]\nallow_unix_socket = /%0107d\n", 0);
	parse_fails(text, ":2:", "107 bytes", NULL);
	snprintf(text, sizeof(text), "[warden]\nallow_unix_socket = /%0106d\n", 0);
	warden_config_free(parse_ok(text));
	parse_fails("[preset p]\nsandbox = read-only\napproval = ask\nnetwork = off\n",
	            ":4:", "network = off", "restricted, allowlist, enabled", "leave the key out", NULL);
	parse_fails("[preset p]\nsandbox = danger-full-access\napproval = never\nnetwork = restricted\n",
	            ":1:", "danger-full-access", "always enabled", NULL);
}

static void test_allowlist_lists_are_normalized_and_bad_entries_named(void **state)
{
	struct warden_config *cfg;

	(void)state;
	cfg = parse_ok("[warden]\n"
	               "default_network = allowlist\n"
	               "allowed_domains = Good.Test *.example.com\n"
	               "allowed_domains = 127.0.0.1 [::1]\n"
	               "denied_domains = bad.test\n"
	               "hosts_file = hosts\n"
	               "[preset agent]\nsandbox = workspace-write\napproval = ask\nnetwork = allowlist\n");
	assert_int_equal(cfg->default_network, WARDEN_NETWORK_ALLOWLIST);
	assert_int_equal(cfg->presets[0].network, WARDEN_NETWORK_ALLOWLIST);
	assert_int_equal(cfg->n_allowed_domains, 4);
	assert_string_equal(cfg->allowed_domains[0], "good.test");
	assert_string_equal(cfg->allowed_domains[1], "*.example.com");
	assert_string_equal(cfg->allowed_domains[3], "::1");
	assert_int_equal(cfg->n_denied_domains, 1);
	assert_string_equal(cfg->hosts_file, "/etc/x/hosts");
	warden_config_free(cfg);

	parse_fails("[warden]\nallowed_domains = a..b\n", ":2:", "'a..b'", "empty label", NULL);
	parse_fails("[warden]\nallowed_domains = *.com\n", ":2:", "two labels", NULL);
	parse_fails("[warden]\nallowed_domains = a.*.com\n", ":2:", "'*.' before a name", NULL);
	parse_fails("[warden]\ndenied_domains = x.test/path\n", ":2:", "not a domain name", NULL);
	parse_fails("[warden]\nallowed_domains = a.test A.test\n", ":2:", "listed twice", NULL);
	parse_fails("[warden]\nhosts_file = ~/hosts\n", ":2:", "'~' is not expanded", NULL);
}

/* --------------------------------------------------------- error paths */

static void test_unknown_keys_in_warden_and_preset_are_errors(void **state)
{
	(void)state;
	parse_fails("[warden]\ndefault_mod = read-only\n",
	            "/etc/x/warden.ini:2:", "default_mod", "allowed: default_mode", NULL);
	parse_fails("[preset p]\nsandbox = read-only\napproval = ask\nmode = x\n",
	            "warden.ini:4:", "'mode'", "allowed: sandbox, approval, label, description", NULL);
}

static void test_bad_values_name_line_key_and_allowed_values(void **state)
{
	(void)state;
	parse_fails("[warden]\n\ndefault_mode = full\n", "warden.ini:3:", "default_mode = full",
	            "read-only, workspace-write, danger-full-access", NULL);
	parse_fails("[warden]\napproval_policy = always\n", ":2:", "approval_policy", "ask, never", NULL);
	parse_fails("[warden]\nrequire_full = maybe\n", ":2:", "require_full", "true, false", NULL);
	parse_fails("[warden]\ndurability = sometimes\n", ":2:", "durability", "fsync, none", NULL);
	parse_fails("[warden]\nworkspace_root = ~/src\n", ":2:", "workspace_root", "'~' is not expanded", NULL);
	parse_fails("[warden]\nstate_dir =\n", ":2:", "state_dir has an empty value", NULL);
	parse_fails("[answerer a]\nplugin = x\nisolation = thread\n", ":3:", "isolation", "inproc, process", NULL);
	parse_fails("[answerer a]\nplugin = x\ntimeout_ms = -1\n", ":3:", "timeout_ms", "whole number", NULL);
	parse_fails("[answerer a]\nplugin = x\ntimeout_ms = 99999999999999999999\n", ":3:", "timeout_ms", NULL);
	parse_fails("[answerer a]\nplugin = x\ntimeout_ms = 10s\n", ":3:", "timeout_ms", NULL);
	parse_fails("[preset p]\nsandbox = none\n", ":2:", "sandbox = none", "read-only", NULL);
	parse_fails("[preset p]\nsandbox = read-only\napproval = sometimes\n", ":3:", "approval", "ask, never", NULL);
}

static void test_plugin_key_is_required_and_must_be_a_name_or_absolute(void **state)
{
	(void)state;
	parse_fails("[backend b]\npath = /usr/bin/bwrap\n[answerer a]\nplugin = x\n",
	            "warden.ini:1:", "[backend b] has no plugin key", NULL);
	parse_fails("[answerer a]\nplugin = x\n[answerer b]\n", ":3:", "[answerer b] has no plugin key", NULL);
	parse_fails("[backend b]\nplugin = plugins/bwrap.so\n", ":2:", "plugin = plugins/bwrap.so",
	            "absolute path", NULL);
	parse_fails("[backend b]\nplugin = ../evil\n", ":2:", "absolute path", NULL);
	parse_fails("[backend b]\nplugin = x\nplugin = y\n", ":3:", "plugin given twice (first at line 2", NULL);
}

static void test_presets_need_both_knobs_and_custom_is_reserved(void **state)
{
	(void)state;
	parse_fails("[preset custom]\nsandbox = read-only\napproval = ask\n",
	            ":1:", "'custom' is reserved", NULL);
	parse_fails("[preset p]\napproval = ask\n", ":1:", "no sandbox key", NULL);
	parse_fails("[preset p]\nsandbox = read-only\n", ":1:", "no approval key", NULL);
}

static void test_duplicate_sections_are_errors(void **state)
{
	(void)state;
	parse_fails("[warden]\n[backend b]\nplugin = x\n[warden]\n",
	            ":4:", "duplicate section [warden] (first at line 1", NULL);
	parse_fails("[backend b]\nplugin = x\n[answerer b]\nplugin = y\n[backend b]\nplugin = z\n",
	            ":5:", "duplicate section [backend b] (first at line 1", NULL);
	/* Back to back: inih alone would see one section. */
	parse_fails("[answerer a]\nplugin = x\n[answerer a]\n", ":3:", "duplicate section [answerer a]", NULL);
	parse_fails("[preset p]\nsandbox = read-only\napproval = ask\n[preset p]\n",
	            ":4:", "duplicate section [preset p]", NULL);
}

static void test_malformed_sections_and_lines_are_errors(void **state)
{
	(void)state;
	parse_fails("[plugins x]\n", ":1:", "unknown section [plugins x]", "allowed: [warden]", NULL);
	parse_fails("[warden\n", ":1:", "without ']'", NULL);
	parse_fails("[warden] junk\n", ":1:", "text after the section header", NULL);
	parse_fails("[warden x]\n", ":1:", "[warden] takes no name", NULL);
	parse_fails("[backend]\n", ":1:", "needs exactly one NAME", NULL);
	parse_fails("[backend a b]\n", ":1:", "needs exactly one NAME", NULL);
	parse_fails("[backend a/b]\nplugin = x\n", ":1:", "bad section name 'a/b'", NULL);
	parse_fails("[backend ../x]\n", ":1:", "bad section name", NULL);
	parse_fails("default_mode = read-only\n", ":1:", "outside any section", NULL);
	parse_fails("[warden]\napproval_policy = ask\nthis is not a key\n", ":3:",
	            "expected `key = value`", NULL);
	parse_fails("[backend b]\nplugin = x\n= value\n", ":3:", "empty key", NULL);
	parse_fails("[warden]\ndefault_mode = read-only\ndefault_mode = read-only\n",
	            ":3:", "default_mode given twice (first at line 2", NULL);
}

static void test_hostile_text_is_refused(void **state)
{
	char line[400], big[128];
	char *name;

	(void)state;
	/* inih would cut a long line in two and read the rest as a new key. */
	memset(line, 'a', sizeof(line));
	memcpy(line, "[backend b]\nplugin = x\nk = ", 27);
	memcpy(line + 250, "\nplugin = /evil\n", 17);
	line[sizeof(line) - 1] = '\0';
	parse_fails(line, ":3:", "line too long", NULL);
	parse_fails("[warden]\napproval_policy = ask\x1b[2J\n", ":2:", "control character 0x1b", NULL);
	parse_fails("[warden]\napproval_policy = a\rsk\n", ":2:", "control character 0x0d", NULL);
	parse_fails("[warden]\x7f\n", ":1:", "control character 0x7f", NULL);
	/* A section name longer than inih's buffer is refused, not truncated. */
	name = malloc(200);
	assert_non_null(name);
	memset(name, 'n', 199);
	name[199] = '\0';
	snprintf(big, sizeof(big), "[backend %.70s]\n", name);
	parse_fails(big, ":1:", "bad section name", NULL);
	free(name);
}

/* ---------------------------------------------------------- the files */

static void test_config_writable_by_group_or_others_is_refused(void **state)
{
	struct warden_config *cfg;
	struct warden_error err;
	char path[PATH_MAX];
	const char *text = "[warden]\n";

	(void)state;
	snprintf(path, sizeof(path), "%s/gw.ini", tmpdir);
	write_file(path, text, strlen(text), 0664);
	assert_int_equal(load(path, &cfg, &err), -WARDEN_ECONFIG);
	assert_null(cfg);
	assert_non_null(strstr(err.msg, "refused, writable by its group"));
	assert_non_null(strstr(err.msg, "chmod go-w"));
	write_file(path, text, strlen(text), 0602);
	assert_int_equal(load(path, &cfg, &err), -WARDEN_ECONFIG);
	assert_non_null(strstr(err.msg, "writable by others"));
	write_file(path, text, strlen(text), 0644);
	assert_int_equal(load(path, &cfg, &err), 0);
	warden_config_free(cfg);
}

static void test_config_owned_by_another_user_is_refused(void **state)
{
	struct warden_config *cfg;
	struct warden_error err;
	char path[PATH_MAX];

	(void)state;
	if (geteuid() != 0)
		fail_msg("this test needs root to chown (CI runs as root)");
	snprintf(path, sizeof(path), "%s/owned.ini", tmpdir);
	write_file(path, "", 0, 0644);
	assert_int_equal(chown(path, 4242, 4242), 0);
	assert_int_equal(load(path, &cfg, &err), -WARDEN_ECONFIG);
	assert_non_null(strstr(err.msg, "owned by uid 4242"));
}

static void test_nul_byte_oversize_and_non_regular_files_are_refused(void **state)
{
	static const char nul[] = "[warden]\napproval_policy = ask\n\0[backend x]\n";
	struct warden_config *cfg;
	struct warden_error err;
	char path[PATH_MAX];
	char *huge;

	(void)state;
	snprintf(path, sizeof(path), "%s/nul.ini", tmpdir);
	write_file(path, nul, sizeof(nul) - 1, 0644);
	assert_int_equal(load(path, &cfg, &err), -WARDEN_ECONFIG);
	assert_non_null(strstr(err.msg, "nul.ini:3: NUL byte"));

	huge = malloc(2 * 1024 * 1024);
	assert_non_null(huge);
	memset(huge, '\n', 2 * 1024 * 1024);
	snprintf(path, sizeof(path), "%s/huge.ini", tmpdir);
	write_file(path, huge, 2 * 1024 * 1024, 0644);
	free(huge);
	assert_int_equal(load(path, &cfg, &err), -WARDEN_ECONFIG);
	assert_non_null(strstr(err.msg, "too large"));

	assert_int_equal(load(tmpdir, &cfg, &err), -WARDEN_ECONFIG);
	assert_non_null(strstr(err.msg, "not a regular file"));

	/* A FIFO must be refused, not block the host. */
	snprintf(path, sizeof(path), "%s/fifo.ini", tmpdir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(load(path, &cfg, &err), -WARDEN_ECONFIG);
	assert_non_null(strstr(err.msg, "not a regular file"));
}

static void test_lookup_order_explicit_env_xdg_then_builtin(void **state)
{
	struct warden_config *cfg;
	struct warden_error err;
	char a[PATH_MAX], b[PATH_MAX], xdgdir[PATH_MAX], x[PATH_MAX];

	(void)state;
	snprintf(a, sizeof(a), "%s/a.ini", tmpdir);
	snprintf(b, sizeof(b), "%s/b.ini", tmpdir);
	write_file(a, "[warden]\nplugin_dir = pa\n", 25, 0644);
	write_file(b, "[warden]\nplugin_dir = pb\n", 25, 0644);
	snprintf(xdgdir, sizeof(xdgdir), "%s/xdg", tmpdir);
	assert_int_equal(mkdir(xdgdir, 0755), 0);
	snprintf(x, sizeof(x), "%s/xdg/warden", tmpdir);
	assert_int_equal(mkdir(x, 0755), 0);
	snprintf(x, sizeof(x), "%s/xdg/warden/warden.ini", tmpdir);
	write_file(x, "[warden]\nplugin_dir = px\n", 25, 0644);
	setenv("XDG_CONFIG_HOME", xdgdir, 1);

	setenv("WARDEN_CONFIG", b, 1);
	assert_int_equal(load(a, &cfg, &err), 0);
	assert_string_equal(cfg->file, a);
	assert_non_null(strstr(cfg->plugin_dir, "/pa"));
	warden_config_free(cfg);

	assert_int_equal(load(NULL, &cfg, &err), 0);
	assert_string_equal(cfg->file, b);
	warden_config_free(cfg);

	unsetenv("WARDEN_CONFIG");
	assert_int_equal(load(NULL, &cfg, &err), 0);
	assert_string_equal(cfg->file, x);
	warden_config_free(cfg);

	/* Nothing in XDG: the system file if installed, else the built-in. */
	assert_int_equal(unlink(x), 0);
	assert_int_equal(load(NULL, &cfg, &err), 0);
	assert_string_equal(cfg->file, access(WARDEN_SYSCONF_FILE, F_OK) == 0
	                               ? WARDEN_SYSCONF_FILE : "<built-in>");
	warden_config_free(cfg);
	unsetenv("XDG_CONFIG_HOME");
}

static void test_missing_explicit_config_is_an_error_not_a_fallback(void **state)
{
	struct warden_config *cfg;
	struct warden_error err;
	char path[PATH_MAX];

	(void)state;
	snprintf(path, sizeof(path), "%s/none.ini", tmpdir);
	assert_int_equal(load(path, &cfg, &err), -WARDEN_ECONFIG);
	assert_null(cfg);
	assert_non_null(strstr(err.msg, "none.ini"));
	assert_non_null(strstr(err.msg, "No such file"));
	setenv("WARDEN_CONFIG", path, 1);
	assert_int_equal(load(NULL, &cfg, &err), -WARDEN_ECONFIG);
	unsetenv("WARDEN_CONFIG");
}

static void test_errors_in_a_loaded_file_name_its_absolute_path(void **state)
{
	struct warden_config *cfg;
	struct warden_error err;
	char path[PATH_MAX], want[PATH_MAX + 8];

	(void)state;
	snprintf(path, sizeof(path), "%s/bad.ini", tmpdir);
	write_file(path, "[warden]\nbogus = 1\n", 19, 0644);
	assert_int_equal(load(path, &cfg, &err), -WARDEN_ECONFIG);
	snprintf(want, sizeof(want), "%s:2:", path);
	assert_non_null(strstr(err.msg, want));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtin_default_parses_with_default_presets),
		cmocka_unit_test(test_sections_keep_file_order_and_plugin_keys),
		cmocka_unit_test(test_warden_keys_and_relative_paths_resolve_against_config_dir),
		cmocka_unit_test(test_defaults_deny_and_state_dir_follows_xdg),
		cmocka_unit_test(test_configured_presets_replace_the_default_table),
		cmocka_unit_test(test_indented_line_is_a_key_not_a_continuation),
		cmocka_unit_test(test_crlf_and_byte_order_mark_are_accepted),
		cmocka_unit_test(test_network_knob_defaults_to_restricted_and_sockets_keep_file_order),
		cmocka_unit_test(test_bad_network_values_name_line_key_and_what_to_write),
		cmocka_unit_test(test_allowlist_lists_are_normalized_and_bad_entries_named),
		cmocka_unit_test(test_unknown_keys_in_warden_and_preset_are_errors),
		cmocka_unit_test(test_bad_values_name_line_key_and_allowed_values),
		cmocka_unit_test(test_plugin_key_is_required_and_must_be_a_name_or_absolute),
		cmocka_unit_test(test_presets_need_both_knobs_and_custom_is_reserved),
		cmocka_unit_test(test_duplicate_sections_are_errors),
		cmocka_unit_test(test_malformed_sections_and_lines_are_errors),
		cmocka_unit_test(test_hostile_text_is_refused),
		cmocka_unit_test(test_config_writable_by_group_or_others_is_refused),
		cmocka_unit_test(test_config_owned_by_another_user_is_refused),
		cmocka_unit_test(test_nul_byte_oversize_and_non_regular_files_are_refused),
		cmocka_unit_test(test_lookup_order_explicit_env_xdg_then_builtin),
		cmocka_unit_test(test_missing_explicit_config_is_an_error_not_a_fallback),
		cmocka_unit_test(test_errors_in_a_loaded_file_name_its_absolute_path),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
