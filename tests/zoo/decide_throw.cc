/*
 * decide_throw.cc — valid, but written in C++ and its decide() throws an
 * exception.  Nothing catches it on the C side: the C++ runtime calls
 * std::terminate(), which aborts.  In process isolation that costs one
 * `unavailable`.
 */
#include <stdexcept>

#include "common.h"

static int throw_decide(void *, const struct warden_request *req, char *,
                        size_t)
{
	throw std::runtime_error(std::string("no opinion on ") + req->tool);
}

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin =
	WARDEN_PLUGIN_ANSWERER_INIT("decide-throw", "1.0",
	                            "throws a C++ exception from decide()",
	                            zoo_open, zoo_close, throw_decide);
