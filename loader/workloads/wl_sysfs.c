// SPDX-License-Identifier: GPL-2.0
/*
 * wl_sysfs.c - the kernfs-bulk seed's scenario: parallel registration of
 * many devices, each a distinct parent for its class devices.
 *
 * T threads write "ID PORTS 1" to /sys/bus/netdevsim/new_device.  Each
 * write registers a bus device /sys/devices/netdevsim<ID> and probes it
 * synchronously (nsim_drv_probe): one devlink instance and PORTS ports,
 * each port a net_device whose parent is the bus device.  A class device
 * whose parent is not a class device lives in a per-(class, parent) glue
 * directory (drivers/base/core.c get_device_parent()), so every netdevsim
 * device gets its own "net" glue dir (and "ptp" when the mock PHC is
 * built) and the net class's glue_dirs list, walked under gdp_mutex,
 * grows with the device count.  new_device/del_device writes serialize on
 * nsim_bus_dev_list_lock; the threads still overlap the sysfs writes'
 * kernfs work outside it.
 *
 * Runs in a private network namespace: the netdevs are created there
 * (nsim_bus_dev->initial_net), so the host sees no interfaces.  The bus
 * devices themselves are global: they are removed with del_device, by the
 * child on success, error and Ctrl-C, and by the parent as a last resort.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

#include "workloads/wl_sysfs.h"
#include "workloads/wl_util.h"

#define WL "sysfs"
#define NETDEV_WAIT_MS 30000

int wl_sysfs_check(const struct fb_params *p, char *why, size_t len)
{
	struct wl_nsim_cfg c;

	return wl_nsim_cfg(p, WL, &c, why, len);
}

/* Class glue directories under one device: subdirs named like a class. */
static unsigned int count_glue_dirs(unsigned int id)
{
	char path[96], cls[320];
	unsigned int n = 0;
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/devices/netdevsim%u", id);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(cls, sizeof(cls), "/sys/class/%s", de->d_name);
		if (wl_exists(cls))
			n++;
	}
	closedir(d);
	return n;
}

/*
 * Waits (bounded) until all ports' netdevs exist in this netns; returns
 * how many interfaces besides lo it holds (base: before the run, e.g.
 * sit0 when IPv6 SIT is built in).
 */
static int wait_netdevs(unsigned int want)
{
	uint64_t t0 = fb_now_ns();
	int n;

	for (;;) {
		n = wl_netdev_count();
		if (n < 0) {
			fb_err(WL ": if_nameindex: %s", strerror(errno));
			return -1;
		}
		if ((unsigned int)n >= want || fb_stop)
			return n;
		if (fb_now_ns() - t0 > NETDEV_WAIT_MS * 1000000ull) {
			fb_err(WL ": only %d of %u netdevs appeared in %d s",
			       n, want, NETDEV_WAIT_MS / 1000);
			return -1;
		}
		wl_sleep_ms(20);
	}
}

static int create_phase(const struct wl_nsim_cfg *c, unsigned char *state,
			struct fb_counts *ops)
{
	unsigned int made, glue = 0;
	uint64_t t0 = fb_now_ns(), busy0 = wl_cpu_busy_us();
	int err, n, base;

	base = wl_netdev_count();
	if (base < 0) {
		fb_err(WL ": if_nameindex: %s", strerror(errno));
		return -1;
	}
	made = wl_nsim_parallel(WL, c->first_id, c->devices, c->ports,
				c->threads, 1, state, &err);
	fb_count_set(ops, "devices_created", made);
	fb_count_set(ops, "ports", (uint64_t)made * c->ports);
	if (err || fb_stop)
		return err;
	n = wait_netdevs(made * c->ports + (unsigned int)base);
	fb_count_set(ops, "create_wall_us", (fb_now_ns() - t0) / 1000);
	fb_count_set(ops, "create_busy_us", wl_cpu_busy_us() - busy0);
	if (n < 0)
		return -1;
	/* the seed's lock counts are for registration alone */
	fb_workload_phase(ops, "register");
	fb_count_set(ops, "netdevs", (uint64_t)(n - base));
	for (unsigned int i = 0; i < c->devices; i++)
		if (state[i])
			glue += count_glue_dirs(c->first_id + i);
	fb_count_set(ops, "glue_dirs", glue);
	return 0;
}

static int remove_phase(const struct wl_nsim_cfg *c, unsigned char *state,
			struct fb_counts *ops)
{
	uint64_t t0 = fb_now_ns(), busy0 = wl_cpu_busy_us();
	unsigned int gone;
	int err, saved = fb_stop;

	/* removal must finish even after Ctrl-C */
	fb_stop = 0;
	gone = wl_nsim_parallel(WL, c->first_id, c->devices, c->ports,
				c->threads, 0, state, &err);
	fb_stop = fb_stop || saved;
	fb_count_set(ops, "devices_removed", gone);
	fb_count_set(ops, "remove_wall_us", (fb_now_ns() - t0) / 1000);
	fb_count_set(ops, "remove_busy_us", wl_cpu_busy_us() - busy0);
	return err;
}

static int sysfs_child(const struct fb_params *p, struct fb_counts *ops,
		       void *arg)
{
	const struct wl_nsim_cfg *c = arg;
	unsigned char *state;
	int ret, ret2;

	(void)p;
	state = calloc(c->devices, 1);
	if (!state) {
		fb_err(WL ": out of memory");
		return -1;
	}
	ret = create_phase(c, state, ops);
	ret2 = remove_phase(c, state, ops);
	free(state);
	return ret ? ret : ret2;
}

int wl_sysfs_avail(char *why, size_t len)
{
	if (!wl_exists(WL_NSIM_BUS)) {
		snprintf(why, len, "netdevsim not in this kernel (%s missing)",
			 WL_NSIM_BUS);
		return -1;
	}
	if (geteuid() != 0) {
		snprintf(why, len, "needs root (%s/new_device)", WL_NSIM_BUS);
		return -1;
	}
	return 0;
}

int wl_sysfs_run(const struct fb_params *p, struct fb_counts *ops)
{
	struct wl_nsim_cfg c;
	char why[160];

	if (wl_nsim_cfg(p, WL, &c, why, sizeof(why))) {
		fb_err(WL ": %s", why);
		return -1;
	}
	if (wl_nsim_free_ids(WL, &c))
		return -1;
	return wl_run_nsim_child(WL, sysfs_child, p, &c, ops, c.first_id, c.devices);
}
