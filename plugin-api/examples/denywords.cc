/*
 * denywords.cc — a template answerer in C++: rejects a request whose
 * subject contains one of the words its section names, says which word
 * and which line, and delegates everything else to the next answerer.
 *
 *   [answerer no-force]
 *   plugin = /usr/local/lib/warden/plugins/denywords.so
 *   word = --force
 *   word = rm -rf
 *
 * Build it against an installed warden, with nothing else:
 *
 *   g++ -std=c++11 -shared -fPIC $(pkg-config --cflags warden-plugin) \
 *       -o denywords.so denywords.cc
 *
 * What it shows, beyond the C templates:
 *
 *   - The descriptor is defined with WARDEN_PLUGIN_EXPORT, which in C++
 *     also gives it C linkage (the loader looks for the unmangled symbol
 *     warden_plugin) and external linkage (a namespace-scope const object
 *     is otherwise internal to its file and never exported).  Its
 *     initializer is WARDEN_PLUGIN_ANSWERER_INIT: C++ before C++20 has no
 *     designated initializers, and that macro lists every field in order.
 *
 *   - No exception leaves a function warden calls.  open(), close() and
 *     decide() are called from C: an exception that reached that frame
 *     would end the process through std::terminate().  In a worker
 *     (isolation = process) that costs the request (`unavailable`); in the
 *     host process (isolation = inproc) it takes warden down, as a crash
 *     does.  So each entry point catches everything: an error in decide()
 *     is WARDEN_DECISION_ERROR with the reason in err (`unavailable`,
 *     never a permission), an error in open() is NULL with the reason.
 *
 *   - A reason with every decision (ABI 1.1): decide() writes one line
 *     into err for a rejection too, and warden records it with the
 *     decision (`approve --json`, the session log).  A 1.0 host ignores it.
 */
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include <warden/plugin.h>

namespace {

struct word {
	std::string text;
	unsigned line;
};

struct denywords {
	std::string instance;
	std::string config_file;
	std::vector<word> words;
};

/* Copies s into err (C's snprintf: bounded, always terminated). */
void say(char *err, size_t errlen, const std::string &s) noexcept
{
	WARDEN_PLUGIN_ERR(err, errlen, "%s", s.c_str());
}

void *denywords_open(const struct warden_open_args *args, char *err,
                     size_t errlen) noexcept
{
	try {
		denywords *d = new denywords;

		d->instance = args->instance;
		d->config_file = args->config_file;
		for (size_t i = 0; i < args->kv_count; i++) {
			const struct warden_kv *kv = WARDEN_OPEN_ARGS_KV(args, i);

			if (std::strcmp(kv->key, "word") != 0 || kv->value[0] == '\0') {
				WARDEN_PLUGIN_ERR(err, errlen, "%s:%u: [answerer %s] %s: "
				                  "allowed: word = TEXT (non-empty)",
				                  args->config_file, kv->line,
				                  args->instance, kv->key);
				delete d;
				return nullptr;
			}
			d->words.push_back(word{ kv->value, kv->line });
		}
		if (d->words.empty()) {
			WARDEN_PLUGIN_ERR(err, errlen, "%s: [answerer %s] names no "
			                  "word (add `word = TEXT`)",
			                  args->config_file, args->instance);
			delete d;
			return nullptr;
		}
		return d;
	} catch (const std::exception &e) {
		say(err, errlen, std::string("denywords: ") + e.what());
	} catch (...) {
		say(err, errlen, "denywords: unknown exception in open");
	}
	return nullptr;
}

void denywords_close(void *state) noexcept
{
	delete static_cast<denywords *>(state);
}

int denywords_decide(void *state, const struct warden_request *req,
                     char *err, size_t errlen) noexcept
{
	try {
		const denywords *d = static_cast<const denywords *>(state);
		const std::string subject(req->subject);

		for (const word &w : d->words) {
			if (subject.find(w.text) != std::string::npos) {
				say(err, errlen, "the subject contains '" + w.text +
				    "' (word = " + w.text + ", " + d->config_file +
				    ":" + std::to_string(w.line) + ")");
				return WARDEN_DECISION_REJECTED;
			}
		}
		return WARDEN_DECISION_DELEGATE;
	} catch (const std::exception &e) {
		/* Whatever went wrong, never a permission: unavailable. */
		say(err, errlen, std::string("denywords: ") + e.what());
	} catch (...) {
		say(err, errlen, "denywords: unknown exception in decide");
	}
	return WARDEN_DECISION_ERROR;
}

} /* namespace */

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin =
	WARDEN_PLUGIN_ANSWERER_INIT("denywords", "1.0",
	                            "rejects subjects that contain a configured word",
	                            denywords_open, denywords_close,
	                            denywords_decide);
