/* SPDX-License-Identifier: GPL-2.0-or-later */
/* discover.c - node discovery with hwloc (see discover.h for what it finds
 * and how NVLinks are counted). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hwloc.h>
#include <hwloc/distances.h>
#include <json-c/json.h>

#include "discover.h"
#include "slurm_hostlist.h"

#define XML_MAX_BYTES (64L << 20) /* a whole-I/O XML of a large node is < 2 MB */

/* hwloc's NVML backend counts NVLink 1 at 20000 MB/s and NVLink 2-4 at
 * 25000 MB/s per link and direction (hwloc/topology-nvml.c,
 * nvmlDeviceGetNvLinkVersion); NVIDIA's P100 (NVLink 1: 20 GB/s per link
 * per direction) and V100 (NVLink 2: 25 GB/s) data sheets agree. */
#define NVLINK1_MBPS 20000.0
#define NVLINK2_MBPS 25000.0

const char *gp__probe_affinity_name(gp_probe_affinity_t a)
{
	static const char *const names[] = { "PIX", "PXB", "PHB", "NODE", "SYS" };

	if (a < GP_PROBE_AFF_PIX || a > GP_PROBE_AFF_SYS)
		return "";
	return names[a];
}

/* ---- reading XML: hwloc 3 files into hwloc 2 -------------------------- */

/* hwloc 2.x refuses XML format 3.0 ("cannot import XML version 3.0 > 2"),
 * which is what hwloc 3 writes.  For what the probe reads the formats
 * differ in one attribute: hwloc 3 writes osdev_type as a bit mask
 * (storage 1, memory 2, GPU 4, coprocessor 8, network 16, OpenFabrics 32,
 * DMA 64) where hwloc 2 writes one enum value.  Rewrite both in place;
 * the result is never longer than the input. */
static int osdev_mask_to_v2(unsigned long mask)
{
	if (mask & 32)
		return HWLOC_OBJ_OSDEV_OPENFABRICS;
	if (mask & 8)
		return HWLOC_OBJ_OSDEV_COPROC;
	if (mask & 4)
		return HWLOC_OBJ_OSDEV_GPU;
	if (mask & 16)
		return HWLOC_OBJ_OSDEV_NETWORK;
	if (mask & 64)
		return HWLOC_OBJ_OSDEV_DMA;
	return HWLOC_OBJ_OSDEV_BLOCK;
}

static void xml_v3_to_v2(char *buf)
{
	static const char attr[] = " osdev_type=\"";
	char *p = strstr(buf, "<topology version=\"3.");
	char *w;

	if (!p)
		return;
	p += strlen("<topology version=\"");
	*p = '2';
	for (p = strstr(buf, attr); p; p = strstr(p, attr)) {
		char num[8];
		long mask;
		size_t k;

		w = p + sizeof(attr) - 1;
		k = strspn(w, "0123456789");
		p = w + k;
		if (!k || k >= sizeof(num) || *p != '"')
			continue;
		memcpy(num, w, k);
		num[k] = '\0';
		if (gp__parse_long(num, 0, 1023, &mask))
			continue;
		/* one digit replaces one or more: shift the rest left */
		*w++ = (char)('0' + osdev_mask_to_v2((unsigned long)mask));
		memmove(w, p, strlen(p) + 1);
		p = w;
	}
}

/* ---- reading XML: indexes hwloc would size bitmaps by ----------------- */

/* hwloc sets the bit os_index of every PU and NUMA node it reads in the
 * root's complete cpuset or nodeset (hwloc_insert_object_by_parent, hwloc
 * 2.x topology.c), so the bitmap grows to that index; an object without
 * os_index gets HWLOC_UNKNOWN_INDEX, 2^32 - 1.  A 12 kB XML whose one PU
 * lacks os_index made `gpuplace probe --xml` reach 533 MB of resident
 * memory (1 GB with two such objects).  So before hwloc reads an XML,
 * every PU and NUMA node must carry a decimal os_index up to
 * OS_INDEX_MAX.  Tags and attributes are found as hwloc's own XML reader
 * finds them (topology-xml-nolibxml.c: a tag ends at the first '>', an
 * attribute is name="value" after white space); a type is matched as
 * hwloc_type_sscanf matches it (a case-insensitive prefix of at least two
 * letters of "pu", "numanode" or "node", ended by anything but a letter
 * or '-').  Linux numbers CPUs below NR_CPUS, at most 8192 on x86-64
 * (CONFIG_MAXSMP) and 4096 on arm64, and NUMA nodes below
 * 2^NODES_SHIFT, at most 1024 (arch/x86/Kconfig, arch/arm64/Kconfig);
 * 65535 leaves room for sparse numbering and keeps a bitmap at 8 kB. */
#define OS_INDEX_MAX 65535UL

static bool type_match(const char *v, const char *type)
{
	size_t i;

	for (i = 0;; i++) {
		char c = v[i];

		if (type[i] && (c == type[i] || c == type[i] - 'a' + 'A'))
			continue;
		if (isalpha((unsigned char)c) || c == '-')
			return false;
		return i >= 2;
	}
}

static bool bitmap_indexed(const char *v)
{
	return type_match(v, "pu") || type_match(v, "numanode") || type_match(v, "node");
}

/* The escapes hwloc writes and its own reader knows; libxml2 reads them
 * alike. */
static size_t xml_escape_len(const char *v)
{
	static const char *const known[] = { "&#10;", "&#13;", "&#9;", "&quot;", "&lt;", "&gt;", "&amp;" };
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strncmp(v, known[i], strlen(known[i])))
			return strlen(known[i]);
	return 0;
}

static bool index_bounded(const char *v)
{
	unsigned long n = 0;
	size_t i;

	for (i = 0; isdigit((unsigned char)v[i]); i++)
		if ((n = n * 10 + (unsigned long)(v[i] - '0')) > OS_INDEX_MAX)
			return false;
	return i > 0 && v[i] == '"';
}

/* One attribute list of an object tag, from after "<object" to its '>':
 * only what hwloc writes, name="value" after white space, so that either
 * XML reader hwloc may use sees the same attributes this one sees.
 * Returns NULL, or where the list leaves that form. */
static const char *object_attrs(const char *q, const char *end, const char **type, int *nindex,
                        const char **bad)
{
	while (q < end) {
		const char *name = q += strspn(q, " \t\n");
		size_t n;

		if (q == end || (*q == '/' && q + 1 == end))
			return NULL;
		if (name[-1] != ' ' && name[-1] != '\t' && name[-1] != '\n')
			return name;
		n = strspn(name, "abcdefghijklmnopqrstuvwxyz_");
		if (n == 0 || name[n] != '=' || name[n + 1] != '"')
			return name;
		q = name + n + 2;
		if (n == 4 && !strncmp(name, "type", 4) && bitmap_indexed(q))
			*type = q;
		else if (n == 8 && !strncmp(name, "os_index", 8)) {
			(*nindex)++;
			if (!*bad && !index_bounded(q))
				*bad = q;
		}
		while (q < end && *q != '"') {
			size_t e = *q == '&' ? xml_escape_len(q) : 1;

			if (e == 0 || *q == '<')
				return q;
			q += e;
		}
		if (q >= end)
			return end;
		q++;
	}
	return NULL;
}

static int xml_indexes_bounded(const char *xml, const char *what, gp_error_t *err)
{
	const char *p = xml, *counted = xml;
	int line = 1;

	while ((p = strstr(p, "<object")) != NULL) {
		const char *end = strchr(p, '>'), *type = NULL, *bad = NULL, *off;
		int nindex = 0;
		char c = p[7];

		if (!end)
			return GP_OK; /* hwloc refuses an unterminated tag */
		for (; counted < p; counted++)
			line += *counted == '\n';
		p += 7;
		if (isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.' || c == ':')
			continue; /* another tag */
		off = object_attrs(p, end, &type, &nindex, &bad);
		if (off) {
			for (; counted < off; counted++)
				line += *counted == '\n';
			return gp__errorf(err, GP_EHWLOC,
			                  "%s:%d: an object's attributes leave the form hwloc writes "
			                  "(name=\"value\" after a space) at '%.*s'",
			                  what, line, (int)strcspn(off, "\n>") < 40 ? (int)strcspn(off, "\n>") : 40, off);
		}
		if (type && nindex == 0)
			return gp__errorf(err, GP_EHWLOC,
			                  "%s:%d: object type '%.*s' has no os_index (hwloc would "
			                  "size a bitmap for index 4294967295)",
			                  what, line, (int)strcspn(type, "\""), type);
		if (type && bad) /* any os_index of the tag: hwloc keeps the last */
			return gp__errorf(err, GP_EHWLOC,
			                  "%s:%d: os_index '%.*s' of a '%.*s' object is not a CPU or "
			                  "NUMA node number hwloc can take (0 to %lu)",
			                  what, line, (int)strcspn(bad, "\""), bad,
			                  (int)strcspn(type, "\""), type, OS_INDEX_MAX);
		p = end;
	}
	return GP_OK;
}

/* Read path into a malloc'd NUL-terminated buffer (the shared reader). */
static int read_file(const char *path, char **out, size_t *len, gp_error_t *err)
{
	gp__file_t f;
	int rc = gp__file_read(path, XML_MAX_BYTES, 0, &f, err);

	*out = f.buf;
	*len = f.len;
	return rc;
}

/* ---- small helpers ---------------------------------------------------- */

static void busid(hwloc_obj_t pci, char *buf)
{
	snprintf(buf, GP_PROBE_BUSID_MAX, "%04x:%02x:%02x.%01x", pci->attr->pcidev.domain,
	         pci->attr->pcidev.bus, pci->attr->pcidev.dev, pci->attr->pcidev.func);
}

static int pci_cmp(const void *a, const void *b)
{
	const struct hwloc_pcidev_attr_s *x = &(*(hwloc_obj_t const *)a)->attr->pcidev;
	const struct hwloc_pcidev_attr_s *y = &(*(hwloc_obj_t const *)b)->attr->pcidev;

	if (x->domain != y->domain)
		return x->domain < y->domain ? -1 : 1;
	if (x->bus != y->bus)
		return x->bus < y->bus ? -1 : 1;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->func != y->func)
		return x->func < y->func ? -1 : 1;
	return 0;
}

static void copy(char *dst, size_t n, const char *src)
{
	snprintf(dst, n, "%s", src ? src : "");
}

/* The PCI device an object sits on (itself if it is one), NULL if none. */
static hwloc_obj_t pci_of(hwloc_obj_t o)
{
	while (o && o->type == HWLOC_OBJ_OS_DEVICE)
		o = o->parent;
	return o && o->type == HWLOC_OBJ_PCI_DEVICE ? o : NULL;
}

static bool is_nvswitch(hwloc_obj_t pci)
{
	if (pci->subtype && !strcmp(pci->subtype, "NVSwitch"))
		return true;
	return pci->attr->pcidev.vendor_id == 0x10de && pci->attr->pcidev.class_id == 0x0680;
}

/* Backend rank of a GPU OS device (lower = preferred for naming), -1 if the
 * OS device does not identify a compute GPU (DRM card0/renderD128 are
 * display nodes any VGA has). */
static int gpu_backend(hwloc_obj_t os, const char **name)
{
	static const struct {
		const char *prefix, *name;
	} b[] = {
		{ "nvml", "NVML" }, { "cuda", "CUDA" }, { "rsmi", "RSMI" },
		{ "ze", "LevelZero" }, { "opencl", "OpenCL" },
	};
	size_t i;

	if (os->type != HWLOC_OBJ_OS_DEVICE || !os->name ||
	    (os->attr->osdev.type != HWLOC_OBJ_OSDEV_GPU &&
	     os->attr->osdev.type != HWLOC_OBJ_OSDEV_COPROC))
		return -1;
	for (i = 0; i < sizeof(b) / sizeof(b[0]); i++) {
		if (strncmp(os->name, b[i].prefix, strlen(b[i].prefix)))
			continue;
		if (!strcmp(b[i].name, "OpenCL")) { /* also lists CPUs and accelerators */
			const char *t = hwloc_obj_get_info_by_name(os, "OpenCLDeviceType");

			if (t && strcmp(t, "GPU"))
				return -1;
		}
		*name = b[i].name;
		return (int)i;
	}
	return -1;
}

/* A compute GPU by PCI class alone, used only when no GPU OS device of a
 * compute backend is present in the whole node (hwloc built or run without
 * CUDA/NVML/RSMI): 3D controllers (0x0302: Tesla and data-centre GPUs) of
 * any vendor, NVIDIA VGA controllers (0x0300: GeForce, RTX) and AMD
 * display controllers (0x0380: Instinct).  A BMC's VGA (Matrox, ASPEED,
 * AMD ES1000: class 0x0300) is not a GPU.  When a backend is present it is
 * authoritative: a GPU PCI device it does not list is not usable by jobs
 * (bound to vfio, hidden by a cgroup, or without a driver); such devices
 * are counted in nignored. */
static bool gpu_by_class(hwloc_obj_t pci)
{
	unsigned cls = pci->attr->pcidev.class_id, ven = pci->attr->pcidev.vendor_id;

	if (cls == 0x0302)
		return true;
	return (cls == 0x0300 && ven == 0x10de) || (cls == 0x0380 && ven == 0x1002);
}

/*
 * Data-centre GPU models by PCI vendor:device id, for nodes where no
 * NVML/CUDA/RSMI backend names the GPU and hwloc was built without the
 * PCI name database (its "PCIDevice" info is then absent).  Source: the
 * PCI ID Repository (pci-ids.ucw.cz, pci.ids version 2026.08.22), vendor
 * 10de (NVIDIA) and 1002 (AMD) entries of every NVIDIA data-centre GPU
 * since V100 and the AMD Instinct line; the name is the bracketed
 * marketing name there, up to its first '/'.  Devices whose id the
 * repository shares with workstation cards (AMD 66a0/66a1: Radeon Pro
 * VII and Instinct MI50) are left out: their name would be a guess.
 */
static const struct pci_gpu {
	uint16_t vendor, device;
	const char *name;
} pci_gpus[] = {
	{ 0x10de, 0x1db1, "Tesla V100 SXM2 16GB" },
	{ 0x10de, 0x1db2, "Tesla V100 DGXS 16GB" },
	{ 0x10de, 0x1db3, "Tesla V100 FHHL 16GB" },
	{ 0x10de, 0x1db4, "Tesla V100 PCIe 16GB" },
	{ 0x10de, 0x1db5, "Tesla V100 SXM2 32GB" },
	{ 0x10de, 0x1db6, "Tesla V100 PCIe 32GB" },
	{ 0x10de, 0x1db7, "Tesla V100 DGXS 32GB" },
	{ 0x10de, 0x1db8, "Tesla V100 SXM3 32GB" },
	{ 0x10de, 0x1df5, "Tesla V100 SXM2 16GB" },
	{ 0x10de, 0x1df6, "Tesla V100S PCIe 32GB" },
	{ 0x10de, 0x1eb8, "Tesla T4" },
	{ 0x10de, 0x20b0, "A100 SXM4 40GB" },
	{ 0x10de, 0x20b1, "A100 PCIe 40GB" },
	{ 0x10de, 0x20b2, "A100 SXM4 80GB" },
	{ 0x10de, 0x20b3, "A100-SXM-64GB" },
	{ 0x10de, 0x20b5, "A100 PCIe 80GB" },
	{ 0x10de, 0x20b7, "A30 PCIe" },
	{ 0x10de, 0x20b8, "A100X" },
	{ 0x10de, 0x20b9, "A30X" },
	{ 0x10de, 0x20bd, "A800 SXM4 40GB" },
	{ 0x10de, 0x20f0, "A100-PG506-207" },
	{ 0x10de, 0x20f1, "A100 PCIe 40GB" },
	{ 0x10de, 0x20f2, "A100-PG506-217" },
	{ 0x10de, 0x20f3, "A800-SXM4-80GB" },
	{ 0x10de, 0x20f5, "A800 80GB PCIe" },
	{ 0x10de, 0x20f6, "A800 40GB PCIe" },
	{ 0x10de, 0x2235, "A40" },
	{ 0x10de, 0x2236, "A10" },
	{ 0x10de, 0x2237, "A10G" },
	{ 0x10de, 0x230c, "H20 NVL16" },
	{ 0x10de, 0x230e, "H20 NVL16" },
	{ 0x10de, 0x2321, "H100L 94GB" },
	{ 0x10de, 0x2322, "H800 PCIe" },
	{ 0x10de, 0x2324, "H800" },
	{ 0x10de, 0x2328, "H20B" },
	{ 0x10de, 0x2329, "H20" },
	{ 0x10de, 0x232c, "H20 HBM3e" },
	{ 0x10de, 0x2330, "H100 SXM5 80GB" },
	{ 0x10de, 0x2331, "H100 PCIe" },
	{ 0x10de, 0x2335, "H200 SXM 141GB" },
	{ 0x10de, 0x2336, "H100" },
	{ 0x10de, 0x2337, "H100 SXM5 64GB" },
	{ 0x10de, 0x2338, "H100 SXM5 96GB" },
	{ 0x10de, 0x2339, "H100 SXM5 94GB" },
	{ 0x10de, 0x233a, "H800L 94GB" },
	{ 0x10de, 0x233b, "H200 NVL" },
	{ 0x10de, 0x233d, "H100 96GB" },
	{ 0x10de, 0x2342, "GH200 120GB" },
	{ 0x10de, 0x2348, "GH200 144G HBM3e" },
	{ 0x10de, 0x237e, "H100 GH3" },
	{ 0x10de, 0x25b6, "A2" },
	{ 0x10de, 0x26b5, "L40" },
	{ 0x10de, 0x26b7, "L20" },
	{ 0x10de, 0x26b8, "L40G" },
	{ 0x10de, 0x26b9, "L40S" },
	{ 0x10de, 0x26ba, "L20" },
	{ 0x10de, 0x27b8, "L4" },
	{ 0x10de, 0x2901, "B200" },
	{ 0x10de, 0x2909, "HGX B200 168GB" },
	{ 0x10de, 0x2941, "HGX GB200" },
	{ 0x10de, 0x29bc, "B100" },
	{ 0x10de, 0x3182, "B300 SXM6 AC" },
	{ 0x10de, 0x31a1, "GB300 MaxQ" },
	{ 0x10de, 0x31c2, "GB300" },
	{ 0x10de, 0x31c3, "GB300" },
	{ 0x1002, 0x6860, "Instinct MI25" },
	{ 0x1002, 0x738c, "Instinct MI100" },
	{ 0x1002, 0x738e, "Instinct MI100" },
	{ 0x1002, 0x7408, "Instinct MI250X" },
	{ 0x1002, 0x740c, "Instinct MI250X" },
	{ 0x1002, 0x740f, "Instinct MI210" },
	{ 0x1002, 0x74a0, "Instinct MI300A" },
	{ 0x1002, 0x74a1, "Instinct MI300X" },
	{ 0x1002, 0x74a2, "Instinct MI308X" },
	{ 0x1002, 0x74a5, "Instinct MI325X" },
	{ 0x1002, 0x74a9, "Instinct MI300X HF" },
	{ 0x1002, 0x74b5, "Instinct MI300X VF" },
	{ 0x1002, 0x74b9, "Instinct MI325X VF" },
	{ 0x1002, 0x74bd, "Instinct MI300X HF" },
	{ 0x1002, 0x75a0, "Instinct MI350X" },
	{ 0x1002, 0x75a3, "Instinct MI355X" },
	{ 0x1002, 0x75a8, "Instinct MI350P" },
};

const char *gp__probe_pci_gpu_name(unsigned vendor, unsigned device)
{
	size_t i;

	for (i = 0; i < sizeof(pci_gpus) / sizeof(pci_gpus[0]); i++)
		if (pci_gpus[i].vendor == vendor && pci_gpus[i].device == device)
			return pci_gpus[i].name;
	return NULL;
}

/* gres Type= from a model name: the first word that is not a vendor or
 * brand word, up to the first '-', lower case, letters and digits only
 * ("Tesla V100-SXM3-32GB-H" -> "v100", "NVIDIA H100 80GB HBM3" -> "h100",
 * "GA100 [A100 SXM4 80GB]" -> "a100"). */
void gp__probe_gpu_type(const char *model, char *out, size_t n)
{
	static const char *const skip[] = {
		"nvidia", "tesla", "geforce", "quadro", "amd", "ati", "radeon", "instinct",
		"intel", "corporation", "data", "center", "gpu", "[amd/ati]", "hgx",
	};
	const char *p = model, *br = strrchr(model, '[');
	size_t o = 0, i;

	/* PCI names put the marketing name in brackets: "GV100GL [Tesla V100
	 * SXM2 16GB]" */
	if (br && strchr(br, ']'))
		p = br + 1;
	out[0] = '\0';
	while (*p && *p != ']') {
		const char *w;
		size_t len;
		bool skipped = false;

		while (*p == ' ')
			p++;
		w = p;
		while (*p && *p != ' ' && *p != ']')
			p++;
		len = (size_t)(p - w);
		if (!len)
			break;
		for (i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
			if (strlen(skip[i]) == len && !strncasecmp(w, skip[i], len))
				skipped = true;
		if (skipped)
			continue;
		for (i = 0; i < len && w[i] != '-' && o + 1 < n; i++)
			if (isalnum((unsigned char)w[i]))
				out[o++] = (char)tolower((unsigned char)w[i]);
		out[o] = '\0';
		if (o)
			return;
	}
}

/* Append "a-b" or "a" to a comma list; returns false if it does not fit. */
static bool put_range(char *buf, size_t n, size_t *o, unsigned a, unsigned b)
{
	int w;

	if (a == b)
		w = snprintf(buf + *o, n - *o, "%s%u", *o ? "," : "", a);
	else
		w = snprintf(buf + *o, n - *o, "%s%u-%u", *o ? "," : "", a, b);
	if (w < 0 || (size_t)w >= n - *o)
		return false;
	*o += (size_t)w;
	return true;
}

/* gres.conf Cores= of an I/O device: the cores in its locality cpuset.
 *
 * Slurm numbers cores 0..N-1 in its own abstract order, not by OS core id
 * (which repeats on every socket or has gaps): "core 0 will be the first
 * core on the first socket ... This numbering coincides with the logical
 * core number (Core L#) seen in lstopo -l" (gres.conf(5), Cores=).  So
 * Cores= lists hwloc logical indexes of the Core objects, as ranges.  A
 * topology without Core objects falls back to PUs (Slurm then treats each
 * PU as a core). */
static void cores_of(hwloc_topology_t topo, hwloc_obj_t dev, char *buf, size_t n)
{
	hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(topo, dev);
	hwloc_obj_type_t t = HWLOC_OBJ_CORE;
	hwloc_obj_t c = NULL;
	size_t o = 0;
	unsigned first = 0, last = 0;
	bool open = false;

	buf[0] = '\0';
	if (!anc || !anc->cpuset)
		return;
	if (hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) <= 0)
		t = HWLOC_OBJ_PU;
	while ((c = hwloc_get_next_obj_inside_cpuset_by_type(topo, anc->cpuset, t, c))) {
		if (open && c->logical_index == last + 1) {
			last = c->logical_index;
			continue;
		}
		if (open && !put_range(buf, n, &o, first, last))
			goto too_long;
		first = last = c->logical_index;
		open = true;
	}
	if (open && !put_range(buf, n, &o, first, last))
		goto too_long;
	return;
too_long:
	buf[0] = '\0'; /* a truncated Cores= would be wrong; none is safe */
}

static int numa_of(hwloc_topology_t topo, hwloc_obj_t dev)
{
	hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(topo, dev);

	if (!anc || !anc->nodeset || hwloc_bitmap_weight(anc->nodeset) != 1)
		return -1;
	return hwloc_bitmap_first(anc->nodeset);
}

/* ---- GPUs and NICs ---------------------------------------------------- */

struct scan {
	hwloc_topology_t topo;
	hwloc_obj_t gpu[GP_MAX_GPUS_PER_NODE];
	hwloc_obj_t nic[GP_PROBE_MAX_NICS];
	bool nvml;       /* the NVML backend described at least one GPU */
};

static bool has_gpu_osdev(hwloc_obj_t pci)
{
	hwloc_obj_t os;
	const char *name;

	for (os = pci->io_first_child; os; os = os->next_sibling)
		if (gpu_backend(os, &name) >= 0)
			return true;
	return false;
}

static int find_gpus(struct scan *s, gp_probe_t *p, gp_error_t *err)
{
	hwloc_obj_t pci = NULL;
	int n = 0, nv = 0, g;
	bool backend = false;

	while ((pci = hwloc_get_next_pcidev(s->topo, pci)))
		backend |= has_gpu_osdev(pci);
	while ((pci = hwloc_get_next_pcidev(s->topo, pci))) {
		if (backend ? !has_gpu_osdev(pci) : !gpu_by_class(pci)) {
			p->nignored += backend && gpu_by_class(pci);
			continue;
		}
		if (n == GP_MAX_GPUS_PER_NODE)
			return gp__errorf(err, GP_ELIMIT, "more than %d GPUs in node %s",
			                  GP_MAX_GPUS_PER_NODE, p->node);
		s->gpu[n++] = pci;
	}
	qsort(s->gpu, (size_t)n, sizeof(s->gpu[0]), pci_cmp);
	p->ngpus = n;
	for (g = 0; g < n; g++) {
		gp_probe_gpu_t *G = &p->gpus[g];
		hwloc_obj_t os;
		int best = 99;
		const char *model = NULL;

		busid(s->gpu[g], G->bus_id);
		copy(G->backend, sizeof(G->backend), "PCI");
		for (os = s->gpu[g]->io_first_child; os; os = os->next_sibling) {
			const char *name;
			int r = gpu_backend(os, &name);

			if (r < 0)
				continue;
			if (r == 0)
				s->nvml = true;
			if (r < best) {
				const char *m = hwloc_obj_get_info_by_name(os, "GPUModel");

				best = r;
				copy(G->backend, sizeof(G->backend), name);
				if (m && *m)
					model = m;
			}
		}
		if (!model)
			model = hwloc_obj_get_info_by_name(s->gpu[g], "PCIDevice");
		/* no backend and no PCI name database: the model from the
		 * PCI id (its device id is as good a fact as the name) */
		if (!model || !*model)
			model = gp__probe_pci_gpu_name(s->gpu[g]->attr->pcidev.vendor_id,
			                               s->gpu[g]->attr->pcidev.device_id);
		copy(G->model, sizeof(G->model), model);
		gp__probe_gpu_type(G->model, G->type, sizeof(G->type));
		/* /dev/nvidiaN: the driver numbers GPUs in PCI probe order,
		 * which is bus order, so the k-th NVIDIA GPU by bus id is
		 * /dev/nvidia<k>.  Other vendors' device files depend on
		 * every DRM device of the node (a BMC's VGA takes
		 * /dev/dri/card0), so File= is left for the admin. */
		if (s->gpu[g]->attr->pcidev.vendor_id == 0x10de)
			snprintf(G->file, sizeof(G->file), "/dev/nvidia%d", nv++);
		cores_of(s->topo, s->gpu[g], G->cores, sizeof(G->cores));
		if (strlen(G->cores) < sizeof(p->layout.cores[g]))
			copy(p->layout.cores[g], sizeof(p->layout.cores[g]), G->cores);
		G->numa = numa_of(s->topo, s->gpu[g]);
		G->rail = -1;
		G->rail_affinity = GP_PROBE_AFF_NONE;
	}
	return GP_OK;
}

static int find_nics(struct scan *s, gp_probe_t *p)
{
	hwloc_obj_t os = NULL;
	int n = 0, i;

	while ((os = hwloc_get_next_osdev(s->topo, os))) {
		hwloc_obj_t pci;

		if (os->attr->osdev.type != HWLOC_OBJ_OSDEV_OPENFABRICS)
			continue;
		pci = pci_of(os);
		if (!pci)
			continue;
		for (i = 0; i < n && s->nic[i] != pci; i++)
			;
		if (i < n || n == GP_PROBE_MAX_NICS)
			continue;
		s->nic[n++] = pci;
	}
	qsort(s->nic, (size_t)n, sizeof(s->nic[0]), pci_cmp);
	p->nnics = n;
	for (i = 0; i < n; i++) {
		gp_probe_nic_t *N = &p->nics[i];

		busid(s->nic[i], N->bus_id);
		N->numa = numa_of(s->topo, s->nic[i]);
		for (os = s->nic[i]->io_first_child; os; os = os->next_sibling) {
			if (os->type != HWLOC_OBJ_OS_DEVICE || !os->name)
				continue;
			if (os->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS && !N->name[0])
				copy(N->name, sizeof(N->name), os->name);
			else if (os->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK && !N->netdev[0])
				copy(N->netdev, sizeof(N->netdev), os->name);
		}
	}
	return GP_OK;
}

/* ---- GPU-NIC affinity -------------------------------------------------- */

static bool is_host_bridge(hwloc_obj_t o)
{
	return o->type == HWLOC_OBJ_BRIDGE &&
	       o->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST;
}

/* Bridges strictly between o and its ancestor anc. */
static int bridges_below(hwloc_obj_t o, hwloc_obj_t anc)
{
	int k = 0;

	for (o = o->parent; o && o != anc; o = o->parent)
		if (o->type == HWLOC_OBJ_BRIDGE)
			k++;
	return k;
}

static int hops(hwloc_obj_t o, hwloc_obj_t anc)
{
	int k = 0;

	for (; o && o != anc; o = o->parent)
		k++;
	return k;
}

/* The nvidia-smi class of the PCIe path between a GPU and a NIC.  One PCIe
 * switch is an upstream port with a downstream port per device below it,
 * so two devices behind the same switch are one bridge level apart from
 * their common ancestor: PIX. */
/* The closest object that is an ancestor of (or equal to) both a and b,
 * NULL when they share none.  Not hwloc_get_common_ancestor_obj(): that
 * function walks by depth, and I/O objects all have negative special depths
 * (HWLOC_TYPE_DEPTH_BRIDGE, _PCI_DEVICE, _OS_DEVICE), so for a GPU and a
 * NIC at different PCIe depths it climbs past the root and dereferences
 * NULL (11 mutated real topologies did, ../shared/data/hwloc-crashes). */
#define ANCESTORS_MAX 256 /* deeper than any PCIe tree: 256 buses in a segment */
static hwloc_obj_t common_ancestor(hwloc_obj_t a, hwloc_obj_t b)
{
	hwloc_obj_t x, y;
	int i, j;

	for (x = a, i = 0; x && i < ANCESTORS_MAX; x = x->parent, i++)
		for (y = b, j = 0; y && j < ANCESTORS_MAX; y = y->parent, j++)
			if (x == y)
				return x;
	return NULL;
}

static gp_probe_affinity_t affinity(hwloc_obj_t a, hwloc_obj_t b, int *dist)
{
	hwloc_obj_t anc = common_ancestor(a, b);

	if (!anc) {
		*dist = INT_MAX;
		return GP_PROBE_AFF_SYS;
	}
	*dist = hops(a, anc) + hops(b, anc);
	if (anc->type == HWLOC_OBJ_BRIDGE || anc->type == HWLOC_OBJ_PCI_DEVICE) {
		if (is_host_bridge(anc))
			return GP_PROBE_AFF_PHB;
		if (bridges_below(a, anc) <= 1 && bridges_below(b, anc) <= 1)
			return GP_PROBE_AFF_PIX;
		return GP_PROBE_AFF_PXB;
	}
	if (anc->nodeset && hwloc_bitmap_weight(anc->nodeset) <= 1)
		return GP_PROBE_AFF_NODE;
	return GP_PROBE_AFF_SYS;
}

static void find_rails(struct scan *s, gp_probe_t *p)
{
	int g, i;

	for (g = 0; g < p->ngpus; g++) {
		int best_d = INT_MAX;

		for (i = 0; i < p->nnics; i++) {
			int d;
			gp_probe_affinity_t a = affinity(s->gpu[g], s->nic[i], &d);

			if (p->gpus[g].rail < 0 || a < p->gpus[g].rail_affinity ||
			    (a == p->gpus[g].rail_affinity && d < best_d)) {
				p->gpus[g].rail = i;
				p->gpus[g].rail_affinity = a;
				best_d = d;
			}
		}
	}
}

/* ---- NVLinks ------------------------------------------------------------ */

enum { EP_OTHER = -1, EP_CPU = -2, EP_SWITCH = -3 };

static int endpoint(const struct scan *s, const gp_probe_t *p, hwloc_obj_t o)
{
	hwloc_obj_t pci = pci_of(o);
	int g;

	if (pci) {
		for (g = 0; g < p->ngpus; g++)
			if (s->gpu[g] == pci)
				return g;
		return is_nvswitch(pci) ? EP_SWITCH : EP_OTHER;
	}
	return o->cpuset ? EP_CPU : EP_OTHER;
}

/* Per-link bandwidth (see discover.h): the GPU generation's value when all
 * nonzero GPU bandwidths are multiples of it, else the smallest one. */
static double per_link(const gp_probe_t *p, const uint64_t *v, const int *ep, unsigned n)
{
	double gen = 0, min = 0;
	bool multiple = true;
	unsigned i, j;
	int g;

	for (g = 0; g < p->ngpus; g++) {
		if (strcasestr(p->gpus[g].model, "P100"))
			gen = NVLINK1_MBPS;
		else if (!gen && p->gpus[g].file[0]) /* NVIDIA */
			gen = NVLINK2_MBPS;
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			uint64_t x = v[i * n + j];

			if (i == j || !x || (ep[i] < 0 && ep[j] < 0))
				continue;
			if (!min || (double)x < min)
				min = (double)x;
			if (gen && (uint64_t)gen && x % (uint64_t)gen)
				multiple = false;
		}
	return gen && multiple ? gen : min;
}

static int nlinks(uint64_t bw, double per)
{
	double k = (double)bw / per + 0.5;

	if (k < 1)
		return 1;
	return k > 127 ? 127 : (int)k;
}

/* GPUs that exist only with NVLink (SXM modules, Blackwell B/GB parts) or
 * NVSwitch PCI devices in the node. */
static bool nvlink_hardware(const struct scan *s, const gp_probe_t *p)
{
	static const char *const parts[] = { "SXM", "B100", "B200", "B300" };
	hwloc_obj_t pci = NULL;
	size_t i;
	int g;

	for (g = 0; g < p->ngpus; g++)
		for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
			if (strcasestr(p->gpus[g].model, parts[i]))
				return true;
	while ((pci = hwloc_get_next_pcidev(s->topo, pci)))
		if (is_nvswitch(pci))
			return true;
	return false;
}

static void find_links(struct scan *s, gp_probe_t *p)
{
	struct hwloc_distances_s *d = NULL;
	unsigned nr = 1, n, i, j;
	int sw[GP_MAX_GPUS_PER_NODE] = { 0 };
	int *ep = NULL;
	int g, h;

	for (g = 0; g < p->ngpus; g++)
		for (h = 0; h < p->ngpus; h++)
			p->layout.links[g][h] = g == h ? -1 : 0;
	/* NVML lists every GPU it sees: without a matrix its GPUs have no
	 * active NVLink.  Without NVML (CUDA or PCI only) nothing is known,
	 * and Links= is left out rather than claimed to be zero.  So is it
	 * when the node plainly has NVLink that hwloc did not measure: SXM
	 * GPUs or NVSwitch devices but no matrix (hwloc's NVML backend skips
	 * NVLink versions it does not know, such as 5 in hwloc 2.9). */
	p->layout.has_links = s->nvml && !nvlink_hardware(s, p);
	if (hwloc_distances_get_by_name(s->topo, "NVLinkBandwidth", &nr, &d, 0) || !nr)
		return;
	n = d->nbobjs;
	ep = malloc(n * sizeof(*ep));
	if (!ep)
		goto out;
	for (i = 0; i < n; i++)
		ep[i] = endpoint(s, p, d->objs[i]);
	p->link_mbps = per_link(p, d->values, ep, n);
	if (p->link_mbps <= 0)
		goto out;
	for (i = 0; i < n; i++) {
		if (ep[i] < 0)
			continue;
		p->nvlink = true;
		p->layout.has_links = true;
		for (j = 0; j < n; j++) {
			/* hwloc stores GPU-GPU links on both sides; take the larger
			 * side in case a writer filled one */
			uint64_t bw = d->values[i * n + j] > d->values[j * n + i] ?
			              d->values[i * n + j] : d->values[j * n + i];

			/* two objects of the matrix may be one GPU (its PCI
			 * device and an OS device under it): no link to itself */
			if (i == j || !bw || ep[j] == ep[i])
				continue;
			if (ep[j] >= 0)
				p->layout.links[ep[i]][ep[j]] = (int8_t)nlinks(bw, p->link_mbps);
			else if (ep[j] == EP_SWITCH)
				sw[ep[i]] += nlinks(bw, p->link_mbps);
			else if (ep[j] == EP_CPU) {
				/* summed over the CPUs it links to, capped as
				 * every link count (the fragment's range) */
				int k = p->gpus[ep[i]].cpu_links + nlinks(bw, p->link_mbps);

				p->gpus[ep[i]].cpu_links = k > 127 ? 127 : k;
			}
		}
	}
	for (g = 0; g < p->ngpus; g++)
		for (h = 0; h < p->ngpus; h++) {
			int k;

			if (g == h || !sw[g] || !sw[h])
				continue;
			p->nvswitch = true;
			k = p->layout.links[g][h] + (sw[g] < sw[h] ? sw[g] : sw[h]);
			p->layout.links[g][h] = (int8_t)(k > 127 ? 127 : k);
		}
out:
	free(ep);
	hwloc_distances_release(s->topo, d);
}

/* Islands: connected components of links > 0, numbered by lowest GPU. */
static void find_islands(gp_gres_layout_t *L)
{
	int g, h, k, stack[GP_MAX_GPUS_PER_NODE], sp;

	for (g = 0; g < L->ngpus; g++)
		L->island[g] = UINT8_MAX;
	L->nislands = 0;
	for (g = 0; g < L->ngpus; g++) {
		if (L->island[g] != UINT8_MAX)
			continue;
		L->island[g] = (uint8_t)L->nislands;
		sp = 0;
		stack[sp++] = g;
		while (sp) {
			k = stack[--sp];
			for (h = 0; h < L->ngpus; h++)
				if (L->island[h] == UINT8_MAX && (L->links[k][h] > 0 || L->links[h][k] > 0)) {
					L->island[h] = (uint8_t)L->nislands;
					stack[sp++] = h;
				}
		}
		L->nislands++;
	}
}

/* ---- loading ------------------------------------------------------------ */

/* How every topology is opened: all PCI devices and bridges (GPUs without
 * OS devices are found by class, and affinity needs the whole PCIe tree),
 * and the whole machine even when run inside a cgroup (a Slurm job, a
 * container): Slurm numbers all cores, so Cores= must too.  xml (len bytes
 * plus a NUL) or NULL for this machine.  Returns 0 or -1 with errno. */
static int topo_open(const char *xml, size_t len, hwloc_topology_t *topo)
{
	*topo = NULL;
	if (hwloc_topology_init(topo)) {
		*topo = NULL;
		return -1;
	}
	hwloc_topology_set_io_types_filter(*topo, HWLOC_TYPE_FILTER_KEEP_ALL);
	hwloc_topology_set_flags(*topo, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
	if ((xml && hwloc_topology_set_xmlbuffer(*topo, xml, (int)len + 1)) ||
	    hwloc_topology_load(*topo)) {
		int e = errno;

		hwloc_topology_destroy(*topo);
		*topo = NULL;
		errno = e;
		return -1;
	}
	return 0;
}

/* Seconds a trial load may take: hwloc reads the 2 MB whole-I/O XML of a
 * large node in well under a second, so this only ends a runaway parse.
 * Kept under half the fuzz tier's per-input timeout (25 s,
 * tests/fuzz/run-one.sh), so that an input hwloc parses slowly is refused
 * here, checker and the load after it together, rather than reported as
 * a fuzzer timeout with the parent waiting in read(). */
#define TRIAL_SECONDS 10

/* hwloc 2.9 itself crashes on some malformed XML it does not reject: a
 * root or NUMA node without complete_cpuset/complete_nodeset (lstopo
 * --input crashes on the same files; see ../shared/data/hwloc-crashes and
 * tests/data/probe/bad-*.xml).  So every XML is first loaded by a checker
 * process, and refused if the checker dies on it.  The checker is forked
 * once and then reads one XML after another from a socket (a fork per
 * input costs a fuzzer thousands of times more than the load); a new one
 * is forked after a crash.  The checker closes stdout and stderr and
 * restores default signal dispositions, so a crash ends it quietly; it
 * exits when the socket closes (this process ended). */
static pthread_mutex_t checker_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t checker_pid = -1;
static int checker_fd = -1;

static bool full_io(int fd, void *buf, size_t n, bool out)
{
	char *p = buf;

	while (n > 0) {
		ssize_t r = out ? send(fd, p, n, MSG_NOSIGNAL) : read(fd, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		p += r;
		n -= (size_t)r;
	}
	return true;
}

static void checker_main(int fd)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGALRM, SIGPIPE };
	int devnull = open("/dev/null", O_RDWR);
	size_t i;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	if (devnull >= 0) {
		dup2(devnull, STDIN_FILENO);
		dup2(devnull, STDOUT_FILENO);
		dup2(devnull, STDERR_FILENO);
	}
	for (;;) {
		hwloc_topology_t t;
		uint64_t len;
		char *xml, ok = 1;

		if (!full_io(fd, &len, sizeof(len), false) || len > (uint64_t)XML_MAX_BYTES)
			_exit(0);
		xml = malloc((size_t)len + 1);
		if (!xml || !full_io(fd, xml, (size_t)len, false))
			_exit(0);
		xml[len] = '\0';
		alarm(TRIAL_SECONDS);
		if (topo_open(xml, (size_t)len, &t) == 0)
			hwloc_topology_destroy(t);
		alarm(0);
		free(xml);
		if (!full_io(fd, &ok, 1, true))
			_exit(0);
	}
}

static void checker_reap(void)
{
	if (checker_fd >= 0)
		close(checker_fd);
	checker_fd = -1;
	checker_pid = -1;
}

static int hwloc_survives_locked(const char *xml, size_t len, const char *what, gp_error_t *err)
{
	uint64_t n = len;
	char ok = 0;
	int status = 0, sv[2];
	pid_t w;

	if (checker_pid < 0) {
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
			return gp__errorf(err, GP_EIO, "%s: socketpair: %s", what, strerror(errno));
		fflush(NULL);
		checker_pid = fork();
		if (checker_pid < 0) {
			close(sv[0]);
			close(sv[1]);
			return gp__errorf(err, GP_EIO, "%s: fork: %s", what, strerror(errno));
		}
		if (checker_pid == 0) {
			close(sv[0]);
			checker_main(sv[1]);
			_exit(0);
		}
		close(sv[1]);
		checker_fd = sv[0];
	}
	if (full_io(checker_fd, &n, sizeof(n), true) && full_io(checker_fd, (void *)xml, len, true) &&
	    full_io(checker_fd, &ok, 1, false) && ok == 1)
		return GP_OK;
	/* the checker died (or cannot be talked to): why */
	close(checker_fd);
	checker_fd = -1;
	do
		w = waitpid(checker_pid, &status, 0);
	while (w < 0 && errno == EINTR);
	checker_reap();
	if (w > 0 && WIFSIGNALED(status))
		return gp__errorf(err, GP_EHWLOC,
		                  "%s: hwloc %s crashed reading it (signal %d); the XML is malformed "
		                  "(check complete_cpuset, complete_nodeset and bridge attributes)",
		                  what, HWLOC_VERSION, WTERMSIG(status));
	return gp__errorf(err, GP_EHWLOC, "%s: hwloc %s failed reading it (checker exit status %d)",
	                  what, HWLOC_VERSION, w > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

static int hwloc_survives(const char *xml, size_t len, const char *what, gp_error_t *err)
{
	int rc;

	pthread_mutex_lock(&checker_lock);
	rc = hwloc_survives_locked(xml, len, what, err);
	pthread_mutex_unlock(&checker_lock);
	return rc;
}

static int set_node(gp_probe_t *p, const char *node_name, gp_error_t *err)
{
	char host[256] = "";

	if (node_name && *node_name) {
		if (strlen(node_name) >= sizeof(p->node))
			return gp__errorf(err, GP_EINVAL,
			                  "node name '%.40s...' is longer than %d characters", node_name,
			                  GP_NAME_MAX - 1);
		copy(p->node, sizeof(p->node), node_name);
		return GP_OK;
	}
	if (gethostname(host, sizeof(host) - 1))
		return gp__errorf(err, GP_EIO, "gethostname: %s", strerror(errno));
	host[strcspn(host, ".")] = '\0';
	copy(p->node, sizeof(p->node), host);
	return GP_OK;
}

/* The common part: xml is a malloc'd NUL-terminated buffer this function
 * takes (rewritten in place, freed), or NULL for this machine. */
static int probe_run(char *xml, const char *what, const char *node_name, gp_probe_t **out,
                     gp_error_t *err)
{
	struct scan s = { 0 };
	gp_probe_t *p = NULL;
	size_t len = 0;
	int rc;

	p = calloc(1, sizeof(*p));
	if (!p) {
		rc = gp__errorf(err, GP_ENOMEM, "out of memory");
		goto error;
	}
	rc = set_node(p, node_name, err);
	if (rc)
		goto error;
	if (xml) {
		if (strlen(what) >= sizeof(p->source)) {
			rc = gp__errorf(err, GP_EINVAL, "path too long: %.60s...", what);
			goto error;
		}
		copy(p->source, sizeof(p->source), what);
		xml_v3_to_v2(xml);
		len = strlen(xml);
		if (len >= INT_MAX) {
			rc = gp__errorf(err, GP_ELIMIT, "%s: too large", what);
			goto error;
		}
		rc = xml_indexes_bounded(xml, what, err);
		if (rc)
			goto error;
		rc = hwloc_survives(xml, len, what, err);
		if (rc)
			goto error;
	}
	if (topo_open(xml, len, &s.topo)) {
		rc = gp__errorf(err, GP_EHWLOC, "%s: hwloc cannot load it: %s",
		                xml ? what : "this machine", strerror(errno));
		goto error;
	}
	rc = find_gpus(&s, p, err);
	if (rc)
		goto error;
	find_nics(&s, p);
	find_rails(&s, p);
	p->layout.ngpus = p->ngpus;
	find_links(&s, p);
	find_islands(&p->layout);
	hwloc_topology_destroy(s.topo);
	free(xml);
	*out = p;
	return GP_OK;
error:
	if (s.topo)
		hwloc_topology_destroy(s.topo);
	free(xml);
	free(p);
	return rc;
}

int gp__probe_load(const char *xml_path, const char *node_name, gp_probe_t **out,
                   gp_error_t *err)
{
	char *xml = NULL;
	size_t len = 0;
	int rc;

	if (!out)
		return gp__errorf(err, GP_EINVAL, "gp__probe_load: out is NULL");
	*out = NULL;
	if (xml_path) {
		rc = read_file(xml_path, &xml, &len, err);
		if (rc)
			return rc;
	}
	return probe_run(xml, xml_path ? xml_path : "this machine", node_name, out, err);
}

int gp__probe_load_buffer(const char *xml, size_t len, const char *what, const char *node_name,
                          gp_probe_t **out, gp_error_t *err)
{
	char *copy_of;

	if (!out || !xml || !what)
		return gp__errorf(err, GP_EINVAL, "gp__probe_load_buffer: NULL argument");
	*out = NULL;
	if (len > (size_t)XML_MAX_BYTES)
		return gp__errorf(err, GP_ELIMIT, "%s: larger than %ld bytes", what, XML_MAX_BYTES);
	copy_of = malloc(len + 1);
	if (!copy_of)
		return gp__errorf(err, GP_ENOMEM, "%s: out of memory", what);
	memcpy(copy_of, xml, len);
	copy_of[len] = '\0';
	return probe_run(copy_of, what, node_name, out, err);
}

void gp__probe_destroy(gp_probe_t *p)
{
	free(p);
}

/* ---- output ------------------------------------------------------------- */

int gp__probe_features(const gp_probe_t *p, char *buf, size_t n)
{
	int size[GP_MAX_GPUS_PER_NODE] = { 0 }, g, big = 0, w = 0;

	for (g = 0; g < p->ngpus; g++)
		if (++size[p->layout.island[g]] > big)
			big = size[p->layout.island[g]];
	if (n)
		buf[0] = '\0';
	if (p->nvlink && big > 1)
		w = snprintf(buf, n, "nvl%d", big);
	if (w >= 0 && (size_t)w < n && p->nnics > 0)
		w += snprintf(buf + w, n - (size_t)w, "%srails%d", w ? "," : "", p->nnics);
	if (w < 0 || (size_t)w >= n)
		return GP_ELIMIT;
	return GP_OK;
}

int gp__probe_gres_body(const gp_probe_t *p, int g, char *buf, size_t n)
{
	const gp_probe_gpu_t *G;
	size_t o = 0;
	int w, h;

#define PUT(...)                                                           \
	do {                                                               \
		w = snprintf(buf + o, n - o, __VA_ARGS__);                 \
		if (w < 0 || (size_t)w >= n - o)                           \
			return GP_ELIMIT;                                  \
		o += (size_t)w;                                            \
	} while (0)

	if (!n || g < 0 || g >= p->ngpus)
		return GP_EINVAL;
	G = &p->gpus[g];
	PUT("Name=gpu");
	if (G->type[0])
		PUT(" Type=%s", G->type);
	if (G->file[0])
		PUT(" File=%s", G->file);
	if (G->cores[0])
		PUT(" Cores=%s", G->cores);
	if (p->layout.has_links) {
		PUT(" Links=");
		for (h = 0; h < p->ngpus; h++)
			PUT("%s%d", h ? "," : "", p->layout.links[g][h]);
	}
#undef PUT
	return GP_OK;
}

/* slurm.conf Gres=gpu:TYPE:N[,gpu:TYPE2:M] in order of first appearance. */
static int gres_spec(const gp_probe_t *p, char *buf, size_t n)
{
	size_t o = 0;
	int g, h, w;

	buf[0] = '\0';
	for (g = 0; g < p->ngpus; g++) {
		int count = 0;

		for (h = 0; h < g && strcmp(p->gpus[h].type, p->gpus[g].type); h++)
			;
		if (h < g)
			continue;
		for (h = g; h < p->ngpus; h++)
			count += !strcmp(p->gpus[h].type, p->gpus[g].type);
		if (p->gpus[g].type[0])
			w = snprintf(buf + o, n - o, "%sgpu:%s:%d", o ? "," : "", p->gpus[g].type, count);
		else
			w = snprintf(buf + o, n - o, "%sgpu:%d", o ? "," : "", count);
		if (w < 0 || (size_t)w >= n - o)
			return GP_ELIMIT;
		o += (size_t)w;
	}
	return GP_OK;
}

int gp__probe_write_conf(const gp_probe_t *p, FILE *f, gp_error_t *err)
{
	char line[2048], feat[128], gres[512];
	int g;

	if (p->ngpus == 0) {
		fprintf(f, "# gpuplace probe: no GPU found on %s (%s)\n", p->node,
		        p->source[0] ? p->source : "this machine");
	} else {
		char isl[48] = "no NVLink seen";

		if (p->nvlink)
			snprintf(isl, sizeof(isl), "%d NVLink island%s%s", p->layout.nislands,
			         p->layout.nislands > 1 ? "s" : "", p->nvswitch ? " (NVSwitch)" : "");
		fprintf(f, "# gpuplace probe: %s, %d GPU%s (%s), %s, %d HCA%s%s%s\n", p->node,
		        p->ngpus, p->ngpus > 1 ? "s" : "", p->gpus[0].backend, isl, p->nnics,
		        p->nnics == 1 ? "" : "s", p->source[0] ? ", from " : "", p->source);
		if (!p->layout.has_links)
			fprintf(f, "# no NVML data: NVLinks unknown, Links= left out\n");
		if (p->nignored)
			fprintf(f, "# %d GPU PCI device%s without a driver OS device left out\n",
			        p->nignored, p->nignored > 1 ? "s" : "");
		fprintf(f, "# gres.conf\n");
		for (g = 0; g < p->ngpus; g++) {
			if (gp__probe_gres_body(p, g, line, sizeof(line)))
				return gp__errorf(err, GP_ELIMIT, "gres.conf line of GPU %d too long", g);
			fprintf(f, "NodeName=%s %s\n", p->node, line);
		}
	}
	if (gp__probe_features(p, feat, sizeof(feat)) || gres_spec(p, gres, sizeof(gres)))
		return gp__errorf(err, GP_ELIMIT, "node features too long");
	if (p->ngpus || feat[0]) {
		fprintf(f, "# slurm.conf: merge into the NodeName=%s line\n#  ", p->node);
		if (p->ngpus)
			fprintf(f, " Gres=%s", gres);
		if (feat[0])
			fprintf(f, " Features=%s", feat);
		fprintf(f, "\n");
	}
	if (p->nnics > 0) {
		fprintf(f, "# gpuplace.conf\nNodeName=%s Rails=%d\n", p->node, p->nnics);
		for (g = 0; g < p->ngpus; g++)
			if (p->gpus[g].rail >= 0)
				fprintf(f, "#   GPU %d (%s): rail %d %s (%s)\n", g, p->gpus[g].bus_id,
				        p->gpus[g].rail, p->nics[p->gpus[g].rail].name,
				        gp__probe_affinity_name(p->gpus[g].rail_affinity));
	}
	if (ferror(f))
		return gp__errorf(err, GP_EIO, "write error");
	return GP_OK;
}

/* ---- JSON fragment ------------------------------------------------------ */

static int jadd(json_object *o, const char *k, json_object *v)
{
	if (!v)
		return -1;
	if (json_object_object_add(o, k, v)) {
		json_object_put(v);
		return -1;
	}
	return 0;
}

static int jpush(json_object *a, json_object *v)
{
	if (!v)
		return -1;
	if (json_object_array_add(a, v)) {
		json_object_put(v);
		return -1;
	}
	return 0;
}

int gp__probe_to_json(const gp_probe_t *p, char **out, gp_error_t *err)
{
	json_object *root = json_object_new_object(), *a, *o, *row;
	char feat[128], *tok, *save = NULL;
	const char *s;
	int g, h, bad = 0;

	*out = NULL;
	if (!root)
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	bad |= jadd(root, "gpuplace_probe", json_object_new_int(1));
	bad |= jadd(root, "node", json_object_new_string(p->node));
	bad |= jadd(root, "source", json_object_new_string(p->source));
	a = json_object_new_array();
	bad |= jadd(root, "gpus", a);
	for (g = 0; a && g < p->ngpus; g++) {
		const gp_probe_gpu_t *G = &p->gpus[g];

		o = json_object_new_object();
		bad |= jpush(a, o);
		if (!o)
			break;
		bad |= jadd(o, "bus_id", json_object_new_string(G->bus_id));
		bad |= jadd(o, "type", json_object_new_string(G->type));
		bad |= jadd(o, "model", json_object_new_string(G->model));
		bad |= jadd(o, "backend", json_object_new_string(G->backend));
		bad |= jadd(o, "file", json_object_new_string(G->file));
		bad |= jadd(o, "numa", json_object_new_int(G->numa));
		bad |= jadd(o, "cores", json_object_new_string(G->cores));
		bad |= jadd(o, "island", json_object_new_int(p->layout.island[g]));
		bad |= jadd(o, "cpu_links", json_object_new_int(G->cpu_links));
		bad |= jadd(o, "rail", json_object_new_int(G->rail));
		bad |= jadd(o, "rail_affinity",
		            json_object_new_string(gp__probe_affinity_name(G->rail_affinity)));
	}
	if (p->layout.has_links) {
		a = json_object_new_array();
		bad |= jadd(root, "links", a);
		for (g = 0; a && g < p->ngpus; g++) {
			row = json_object_new_array();
			bad |= jpush(a, row);
			for (h = 0; row && h < p->ngpus; h++)
				bad |= jpush(row, json_object_new_int(p->layout.links[g][h]));
		}
	}
	bad |= jadd(root, "nislands", json_object_new_int(p->layout.nislands));
	bad |= jadd(root, "nvswitch", json_object_new_boolean(p->nvswitch));
	bad |= jadd(root, "link_mbps", json_object_new_double(p->link_mbps));
	a = json_object_new_array();
	bad |= jadd(root, "nics", a);
	for (g = 0; a && g < p->nnics; g++) {
		o = json_object_new_object();
		bad |= jpush(a, o);
		if (!o)
			break;
		bad |= jadd(o, "bus_id", json_object_new_string(p->nics[g].bus_id));
		bad |= jadd(o, "name", json_object_new_string(p->nics[g].name));
		bad |= jadd(o, "netdev", json_object_new_string(p->nics[g].netdev));
		bad |= jadd(o, "numa", json_object_new_int(p->nics[g].numa));
	}
	a = json_object_new_array();
	bad |= jadd(root, "features", a);
	if (gp__probe_features(p, feat, sizeof(feat)))
		bad = 1;
	for (tok = strtok_r(feat, ",", &save); a && tok; tok = strtok_r(NULL, ",", &save))
		bad |= jpush(a, json_object_new_string(tok));
	s = bad ? NULL : json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
	                                                       JSON_C_TO_STRING_NOSLASHESCAPE);
	*out = s ? strdup(s) : NULL;
	json_object_put(root);
	if (!*out)
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	return GP_OK;
}

/* Typed member access for the fragment reader. */
static int jget(json_object *o, const char *k, json_type t, bool required, json_object **v,
                const char *what, const char *ctx, gp_error_t *err)
{
	*v = NULL;
	if (!json_object_object_get_ex(o, k, v) || !*v) {
		*v = NULL;
		if (required)
			return gp__errorf(err, GP_EJSON, "%s: %s: \"%s\" missing", what, ctx, k);
		return GP_OK;
	}
	if (!json_object_is_type(*v, t)) {
		*v = NULL;
		return gp__errorf(err, GP_EJSON, "%s: %s: \"%s\" has the wrong type (want %s)", what,
		                  ctx, k, json_type_to_name(t));
	}
	return GP_OK;
}

static int jstr(json_object *o, const char *k, bool required, char *dst, size_t n,
                const char *what, const char *ctx, gp_error_t *err)
{
	json_object *v;
	int rc = jget(o, k, json_type_string, required, &v, what, ctx, err);

	if (rc || !v)
		return rc;
	if ((size_t)json_object_get_string_len(v) >= n)
		return gp__errorf(err, GP_ELIMIT, "%s: %s: \"%s\" longer than %zu characters", what,
		                  ctx, k, n - 1);
	copy(dst, n, json_object_get_string(v));
	return GP_OK;
}

static int jint(json_object *o, const char *k, bool required, long min, long max, int *dst,
                const char *what, const char *ctx, gp_error_t *err)
{
	json_object *v;
	int64_t x;
	int rc = jget(o, k, json_type_int, required, &v, what, ctx, err);

	if (rc || !v)
		return rc;
	x = json_object_get_int64(v);
	if (x < min || x > max)
		return gp__errorf(err, GP_EJSON, "%s: %s: \"%s\" = %lld is out of range [%ld, %ld]",
		                  what, ctx, k, (long long)x, min, max);
	*dst = (int)x;
	return GP_OK;
}

static int from_root(json_object *root, const char *what, gp_probe_t *p, gp_error_t *err)
{
	json_object *a, *o, *row, *v;
	char ctx[128];
	int rc, g, h, n, version = 0;
	size_t i;

	if (!json_object_is_type(root, json_type_object))
		return gp__errorf(err, GP_EJSON, "%s: not a JSON object", what);
	rc = jint(root, "gpuplace_probe", true, 1, 1, &version, what, "fragment", err);
	if (!rc)
		rc = jstr(root, "node", true, p->node, sizeof(p->node), what, "fragment", err);
	if (!rc && !p->node[0])
		rc = gp__errorf(err, GP_EJSON, "%s: fragment: \"node\" is empty", what);
	if (!rc)
		rc = jstr(root, "source", false, p->source, sizeof(p->source), what, "fragment", err);
	if (!rc)
		rc = jget(root, "gpus", json_type_array, true, &a, what, p->node, err);
	if (rc)
		return rc;
	if (json_object_array_length(a) > GP_MAX_GPUS_PER_NODE)
		return gp__errorf(err, GP_ELIMIT, "%s: %s: more than %d GPUs", what, p->node,
		                  GP_MAX_GPUS_PER_NODE);
	n = p->ngpus = p->layout.ngpus = (int)json_object_array_length(a);
	for (g = 0; g < n; g++) {
		gp_probe_gpu_t *G = &p->gpus[g];
		int island = 0;

		snprintf(ctx, sizeof(ctx), "%s GPU %d", p->node, g);
		o = json_object_array_get_idx(a, (size_t)g);
		if (!json_object_is_type(o, json_type_object))
			return gp__errorf(err, GP_EJSON, "%s: %s: not an object", what, ctx);
		rc = jstr(o, "bus_id", true, G->bus_id, sizeof(G->bus_id), what, ctx, err);
		if (!rc)
			rc = jstr(o, "type", true, G->type, sizeof(G->type), what, ctx, err);
		if (!rc)
			rc = jstr(o, "model", false, G->model, sizeof(G->model), what, ctx, err);
		if (!rc)
			rc = jstr(o, "backend", false, G->backend, sizeof(G->backend), what, ctx, err);
		if (!rc)
			rc = jstr(o, "file", false, G->file, sizeof(G->file), what, ctx, err);
		if (!rc)
			rc = jstr(o, "cores", false, G->cores, sizeof(G->cores), what, ctx, err);
		G->numa = -1;
		G->rail = -1;
		if (!rc)
			rc = jint(o, "numa", false, -1, INT_MAX, &G->numa, what, ctx, err);
		if (!rc)
			rc = jint(o, "island", true, 0, n - 1, &island, what, ctx, err);
		if (!rc)
			rc = jint(o, "cpu_links", false, 0, 127, &G->cpu_links, what, ctx, err);
		if (!rc)
			rc = jint(o, "rail", false, -1, GP_PROBE_MAX_NICS - 1, &G->rail, what, ctx, err);
		if (rc)
			return rc;
		if (strpbrk(G->type, " \t,:=\"") || strpbrk(G->file, " \t\"") ||
		    strspn(G->cores, "0123456789,-") != strlen(G->cores))
			return gp__errorf(err, GP_EJSON, "%s: %s: type, file or cores not usable in gres.conf",
			                  what, ctx);
		p->layout.island[g] = (uint8_t)island;
		G->rail_affinity = GP_PROBE_AFF_NONE;
		if (json_object_object_get_ex(o, "rail_affinity", &v) &&
		    json_object_is_type(v, json_type_string))
			for (h = GP_PROBE_AFF_PIX; h <= GP_PROBE_AFF_SYS; h++)
				if (!strcmp(json_object_get_string(v), gp__probe_affinity_name(h)))
					G->rail_affinity = (gp_probe_affinity_t)h;
		if (strlen(G->cores) < sizeof(p->layout.cores[g]))
			copy(p->layout.cores[g], sizeof(p->layout.cores[g]), G->cores);
	}
	rc = jint(root, "nislands", true, 0, n, &p->layout.nislands, what, p->node, err);
	if (!rc)
		rc = jget(root, "links", json_type_array, false, &a, what, p->node, err);
	if (rc)
		return rc;
	for (g = 0; g < n; g++)
		for (h = 0; h < n; h++)
			p->layout.links[g][h] = g == h ? -1 : 0;
	if (a) {
		p->layout.has_links = true;
		if ((int)json_object_array_length(a) != n)
			return gp__errorf(err, GP_EJSON, "%s: %s: \"links\" is not %d x %d", what,
			                  p->node, n, n);
		for (g = 0; g < n; g++) {
			row = json_object_array_get_idx(a, (size_t)g);
			if (!json_object_is_type(row, json_type_array) ||
			    (int)json_object_array_length(row) != n)
				return gp__errorf(err, GP_EJSON, "%s: %s: \"links\" is not %d x %d", what,
				                  p->node, n, n);
			for (h = 0; h < n; h++) {
				int64_t x;

				v = json_object_array_get_idx(row, (size_t)h);
				if (!json_object_is_type(v, json_type_int))
					return gp__errorf(err, GP_EJSON, "%s: %s: links[%d][%d] is not an integer",
					                  what, p->node, g, h);
				x = json_object_get_int64(v);
				if ((g == h && x != -1) || (g != h && (x < 0 || x > 127)))
					return gp__errorf(err, GP_EJSON,
					                  "%s: %s: links[%d][%d] = %lld (want -1 on the diagonal, 0..127 elsewhere)",
					                  what, p->node, g, h, (long long)x);
				p->layout.links[g][h] = (int8_t)x;
				if (g != h && x > 0)
					p->nvlink = true;
			}
		}
	}
	if (json_object_object_get_ex(root, "nvswitch", &v) && json_object_is_type(v, json_type_boolean))
		p->nvswitch = json_object_get_boolean(v);
	if (json_object_object_get_ex(root, "link_mbps", &v) &&
	    (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		p->link_mbps = json_object_get_double(v);
	rc = jget(root, "nics", json_type_array, true, &a, what, p->node, err);
	if (rc)
		return rc;
	if (json_object_array_length(a) > GP_PROBE_MAX_NICS)
		return gp__errorf(err, GP_ELIMIT, "%s: %s: more than %d NICs", what, p->node,
		                  GP_PROBE_MAX_NICS);
	p->nnics = (int)json_object_array_length(a);
	for (i = 0; i < (size_t)p->nnics; i++) {
		gp_probe_nic_t *N = &p->nics[i];

		snprintf(ctx, sizeof(ctx), "%s NIC %zu", p->node, i);
		o = json_object_array_get_idx(a, i);
		if (!json_object_is_type(o, json_type_object))
			return gp__errorf(err, GP_EJSON, "%s: %s: not an object", what, ctx);
		N->numa = -1;
		rc = jstr(o, "bus_id", false, N->bus_id, sizeof(N->bus_id), what, ctx, err);
		if (!rc)
			rc = jstr(o, "name", false, N->name, sizeof(N->name), what, ctx, err);
		if (!rc)
			rc = jstr(o, "netdev", false, N->netdev, sizeof(N->netdev), what, ctx, err);
		if (!rc)
			rc = jint(o, "numa", false, -1, INT_MAX, &N->numa, what, ctx, err);
		if (rc)
			return rc;
	}
	for (g = 0; g < n; g++)
		if (p->gpus[g].rail >= p->nnics)
			return gp__errorf(err, GP_EJSON, "%s: %s GPU %d: rail %d but %d NICs", what,
			                  p->node, g, p->gpus[g].rail, p->nnics);
	return GP_OK;
}

int gp__probe_from_json(const char *text, size_t len, const char *what, gp_probe_t **out,
                        gp_error_t *err)
{
	struct json_tokener *tok;
	json_object *root;
	gp_probe_t *p;
	size_t i;
	int rc;

	*out = NULL;
	if (!what)
		what = "fragment";
	if (len > INT_MAX)
		return gp__errorf(err, GP_ELIMIT, "%s: too large", what);
	p = calloc(1, sizeof(*p));
	tok = json_tokener_new();
	if (!p || !tok) {
		free(p);
		if (tok)
			json_tokener_free(tok);
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	}
	root = json_tokener_parse_ex(tok, text, (int)len);
	if (!root || json_tokener_get_error(tok) != json_tokener_success) {
		enum json_tokener_error e = json_tokener_get_error(tok);

		rc = gp__errorf(err, GP_EJSON, "%s: %s", what,
		                e == json_tokener_continue ? "unexpected end of JSON" :
		                                             json_tokener_error_desc(e));
		goto error;
	}
	for (i = json_tokener_get_parse_end(tok); i < len; i++)
		if (!strchr(" \t\r\n", text[i]) || !text[i]) {
			rc = gp__errorf(err, GP_EJSON, "%s: text after the JSON object", what);
			goto error;
		}
	rc = from_root(root, what, p, err);
	if (rc)
		goto error;
	json_object_put(root);
	json_tokener_free(tok);
	*out = p;
	return GP_OK;
error:
	json_object_put(root);
	json_tokener_free(tok);
	free(p);
	return rc;
}

/* ---- merging many nodes -------------------------------------------------- */

typedef int (*sig_fn)(const gp_probe_t *p, char *buf, size_t n);

/* The gres.conf bodies of a node, one per line; "" without GPUs. */
static int sig_gres(const gp_probe_t *p, char *buf, size_t n)
{
	size_t o = 0;
	int g, rc;

	buf[0] = '\0';
	for (g = 0; g < p->ngpus; g++) {
		rc = gp__probe_gres_body(p, g, buf + o, n - o - 1);
		if (rc)
			return rc;
		o += strlen(buf + o);
		buf[o++] = '\n';
		buf[o] = '\0';
	}
	return GP_OK;
}

static int sig_rails(const gp_probe_t *p, char *buf, size_t n)
{
	int w = p->nnics > 0 ? snprintf(buf, n, "Rails=%d", p->nnics) : snprintf(buf, n, "%s", "");

	return w < 0 || (size_t)w >= n ? GP_ELIMIT : GP_OK;
}

static int sig_slurm(const gp_probe_t *p, char *buf, size_t n)
{
	char gres[512], feat[128];
	int w;

	if (gres_spec(p, gres, sizeof(gres)) || gp__probe_features(p, feat, sizeof(feat)))
		return GP_ELIMIT;
	w = snprintf(buf, n, "%s%s%s%s", p->ngpus ? "Gres=" : "", gres,
	             feat[0] ? (p->ngpus ? " Features=" : "Features=") : "", feat);
	return w < 0 || (size_t)w >= n ? GP_ELIMIT : GP_OK;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp((*(gp_probe_t *const *)a)->node, (*(gp_probe_t *const *)b)->node);
}

/* Group the nodes by sig and write each group: prefix, the ranged host
 * list, then the signature's lines (each after "NodeName=LIST "). */
static int write_groups(gp_probe_t *const *p, int n, sig_fn sig, const char *prefix, FILE *f,
                        gp_error_t *err)
{
	enum { SIG_MAX = 8192 };
	char **sigs = calloc((size_t)n + 1, sizeof(*sigs));
	bool *done = calloc((size_t)n + 1, sizeof(*done));
	char *buf = malloc(SIG_MAX);
	int i, j, rc = GP_OK;

	if (!sigs || !done || !buf) {
		rc = gp__errorf(err, GP_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (sig(p[i], buf, SIG_MAX)) {
			rc = gp__errorf(err, GP_ELIMIT, "%s: configuration lines too long", p[i]->node);
			goto out;
		}
		sigs[i] = strdup(buf);
		if (!sigs[i]) {
			rc = gp__errorf(err, GP_ENOMEM, "out of memory");
			goto out;
		}
	}
	for (i = 0; i < n; i++) {
		gp_hostlist_t hl;
		char *hosts, *line, *save = NULL;

		if (done[i] || !sigs[i][0])
			continue;
		hl = slurm_hostlist_create(NULL);
		if (!hl) {
			rc = gp__errorf(err, GP_ENOMEM, "out of memory");
			goto out;
		}
		for (j = i; j < n; j++)
			if (!done[j] && !strcmp(sigs[i], sigs[j])) {
				done[j] = true;
				if (!slurm_hostlist_push_host(hl, p[j]->node)) {
					slurm_hostlist_destroy(hl);
					rc = gp__errorf(err, GP_ENOMEM, "out of memory");
					goto out;
				}
			}
		slurm_hostlist_uniq(hl); /* sorts, so ranges come out whole */
		hosts = gp_hostlist_ranged(hl);
		slurm_hostlist_destroy(hl);
		if (!hosts) {
			rc = gp__errorf(err, GP_ENOMEM, "out of memory");
			goto out;
		}
		for (line = strtok_r(sigs[i], "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			fprintf(f, "%sNodeName=%s %s\n", prefix, hosts, line);
		free(hosts);
	}
	if (ferror(f))
		rc = gp__errorf(err, GP_EIO, "write error");
out:
	for (i = 0; sigs && i < n; i++)
		free(sigs[i]);
	free(sigs);
	free(done);
	free(buf);
	return rc;
}

int gp__probe_merge(gp_probe_t *const *p, int n, FILE *f, gp_error_t *err)
{
	gp_probe_t **sorted;
	int i, rc;

	if (n < 0 || (n && !p))
		return gp__errorf(err, GP_EINVAL, "gp__probe_merge: no input");
	sorted = malloc(((size_t)n + 1) * sizeof(*sorted));
	if (!sorted)
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	if (n)
		memcpy(sorted, p, (size_t)n * sizeof(*sorted));
	qsort(sorted, (size_t)n, sizeof(*sorted), name_cmp);
	for (i = 1; i < n; i++)
		if (!strcmp(sorted[i - 1]->node, sorted[i]->node)) {
			rc = gp__errorf(err, GP_EINVAL, "node %s is given twice", sorted[i]->node);
			free(sorted);
			return rc;
		}
	free(sorted);
	fprintf(f, "# gres.conf (gpuplace cluster merge of %d node%s)\n", n, n == 1 ? "" : "s");
	rc = write_groups(p, n, sig_gres, "", f, err);
	if (!rc) {
		fprintf(f, "# gpuplace.conf\n");
		rc = write_groups(p, n, sig_rails, "", f, err);
	}
	if (!rc) {
		fprintf(f, "# slurm.conf: merge into these NodeName lines\n");
		rc = write_groups(p, n, sig_slurm, "#   ", f, err);
	}
	return rc;
}
