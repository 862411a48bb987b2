/*
 * preset.h — permission presets (DESIGN §4): named bundles of the
 * independent knobs sandbox/mode, approval/policy and sandbox/network.
 *
 * The table is the config's [preset NAME] sections in file order, or the
 * default table of DESIGN §4 when the config declares none.  A preset
 * describes only its knobs (a preset without a network key leaves the
 * network alone: it matches any network and selecting it writes none);
 * selecting one writes them through their own setters (session.h) and
 * nothing else follows it.
 *
 * The network a preset is compared with is the effective one:
 * danger-full-access confines nothing, so under it the network is always
 * enabled whatever the knob records.
 */
#ifndef WARDEN_PRESET_H
#define WARDEN_PRESET_H

#include <stddef.h>

#include "error.h"
#include "session.h"
#include "wconfig.h"

/* The presets in force, in declaration order. */
const struct warden_preset *warden_preset_table(const struct warden_config *cfg,
                                                size_t *n);

/* The preset named `name`, or NULL. */
const struct warden_preset *warden_preset_find(const struct warden_config *cfg,
                                               const char *name);

/* The effective knobs: the recorded value, else the config's. */
int warden_knobs_mode(const struct warden_config *cfg,
                      const struct warden_knobs *k);
int warden_knobs_policy(const struct warden_config *cfg,
                        const struct warden_knobs *k);
/* The network knob: the recorded value, else the config's default_network
 * (what danger-full-access does with it is warden_knobs_network_effective). */
int warden_knobs_network(const struct warden_config *cfg,
                         const struct warden_knobs *k);
/* The network a command runs with under these knobs: enabled under
 * danger-full-access, else warden_knobs_network(). */
int warden_knobs_network_effective(const struct warden_config *cfg,
                                   const struct warden_knobs *k);

/*
 * current(): with the effective knobs, the last permission/preset
 * selection if it is still declared and still matches; else the first
 * declared preset that matches; else "custom".  *from_selection (may be
 * NULL) is 1 when the last selection won.  The result is the table's own
 * string or WARDEN_PRESET_CUSTOM.
 */
const char *warden_preset_current(const struct warden_config *cfg,
                                  const struct warden_knobs *k,
                                  int *from_selection);

/*
 * select(): an unknown name (or "custom") is -WARDEN_EUSAGE.  Under the
 * session's lock: nothing when `name` is already the current preset;
 * else a permission/preset event, then sandbox/mode only if the effective
 * mode changes, then approval/policy only if the effective policy
 * changes, then sandbox/network only if the preset has a network and the
 * knob's value changes — all in one write.  *changed (may be NULL) says whether
 * anything was appended.
 */
int warden_preset_select(const struct warden_config *cfg,
                         struct warden_session *s, const char *name,
                         int *changed, struct warden_error *err);

#endif
