/*
 * ruleset.h — the rules of one [answerer NAME] section of the rules
 * plugin: reading them (with their examples, which must hold) and
 * deciding a request by them.  Built into the rules plugin and into
 * `warden config check`, which reads a section exactly as the plugin
 * will, examples included.  Not part of the plugin API.
 *
 * Keys, in file order:
 *   allow = TOOL:GLOB, deny = TOOL:GLOB   whole-string fnmatch(3) patterns
 *                                         over the tool and the subject
 *   allow_command = WORDS, deny_command = WORDS, ask_command = WORDS
 *                                         a command prefix in shell words,
 *                                         for requests of tool bash
 *   example_match = X, example_not_match = X
 *                                         belong to the rule just above:
 *                                         a command string it must (not)
 *                                         decide, checked when read
 *   writable_program = reject | next | rules
 *
 * A request of tool bash is parsed into its simple commands (shparse.h:
 * its argv, or the subject when it has none), then, in this order:
 *   1. a program under a writable root: writable_program;
 *   2. a command that a deny_command matches: rejected (even when the
 *      rest of the string is not understood);
 *   3. a command that a deny_command may match (a word of the rule's
 *      length is not fixed) or that an ask_command matches: delegated;
 *   4. the allow/deny patterns, first match in file order, over the
 *      whole string;
 *   5. delegated unless the string is understood, has a command, writes
 *      no file by redirection and an allow_command matches every command.
 * A rule's first word matches the program word as written; deny_command
 * and ask_command whose program has no '/' also match any path ending in
 * /PROGRAM, allow_command never does.
 */
#ifndef WARDEN_RULESET_H
#define WARDEN_RULESET_H

#include <stddef.h>

struct warden_ruleset;

/* What a request says of itself (the fields of struct warden_request the
 * rules read). */
struct warden_rules_request {
	const char *tool;
	const char *subject;
	const char *const *argv;  /* argc 0: none, the subject is parsed */
	size_t argc;
	const char *program;
	int program_writable;
};

/* An empty rule set for the section NAME of FILE (for messages); NULL
 * when out of memory. */
struct warden_ruleset *warden_ruleset_new(const char *file,
                                          const char *instance);

/* One `key = value` line of the section.  0, or -1 with one line in err
 * ("FILE:LINE: [answerer NAME] KEY = VALUE: what is wrong"): an unknown
 * key, a rule that does not read, an example that fails. */
int warden_ruleset_add(struct warden_ruleset *rs, const char *key,
                       const char *value, unsigned line, char *err,
                       size_t errlen);

/* The number of rules and of examples read. */
size_t warden_ruleset_rules(const struct warden_ruleset *rs);
size_t warden_ruleset_examples(const struct warden_ruleset *rs);

/* The decision (enum warden_decision), with its reason in why. */
int warden_ruleset_decide(const struct warden_ruleset *rs,
                          const struct warden_rules_request *rq,
                          char *why, size_t whylen);

void warden_ruleset_free(struct warden_ruleset *rs);

/* Whether a config section's `plugin` value names the rules plugin
 * (`rules`, or an absolute path whose file is rules.so). */
int warden_ruleset_plugin_is_rules(const char *plugin);

#endif
