/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * discover.h - node discovery with hwloc: GPUs, NVLinks, GPU-NIC affinity.
 *
 * gp__probe_load() reads the topology of this machine (or a saved hwloc
 * XML file) and describes the node as Slurm and gpuplace need it:
 *
 *   - GPUs: PCI devices that carry a CUDA, NVML, RSMI, Level Zero or OpenCL
 *     GPU OS device; where the node has no such OS device at all (hwloc
 *     without GPU backends), PCI class 0x0302 (3D controller), NVIDIA class
 *     0x0300 or AMD class 0x0380 (a BMC's VGA, such as Matrox, ASPEED or
 *     AMD ES1000, is not a GPU).  One GPU is one
 *     PCI function: cuda0 + nvml0 + the PCI device are the same GPU (grouped
 *     by PCI bus id).  GPUs are ordered by PCI bus id.
 *   - the NVLink matrix in gres.conf Links= semantics (see
 *     gp_gres_layout_t in model.h), from hwloc's "NVLinkBandwidth"
 *     distances, and the NVLink islands derived from it;
 *   - each GPU's NUMA node and the cores near it (gres.conf Cores=);
 *   - the InfiniBand/RoCE adapters (hwloc OpenFabrics OS devices, one per
 *     PCI function) and, for each GPU, the closest one in the PCIe tree: its
 *     rail.
 *
 * Counting NVLinks.  hwloc reports bandwidth in MB/s, the sum over the
 * links that join two endpoints, at a fixed per-link value per NVLink
 * version (hwloc's NVML backend: 20000 for NVLink 1 (P100), 25000 for
 * NVLink 2-4 (V100, A100, H100)).  The per-link value is taken from the GPU
 * model (P100 -> 20000, any other NVIDIA GPU -> 25000) when every nonzero
 * bandwidth in the matrix is a multiple of it; otherwise (unknown model,
 * another hwloc) it is the smallest nonzero GPU bandwidth of the matrix.
 * links = bandwidth / per-link value, rounded, at least 1.  NVML without a
 * matrix means no active NVLink, except on nodes that plainly have NVLink
 * (SXM or Blackwell GPUs, NVSwitch devices; hwloc 2.9 skips NVLink 5):
 * there, as without NVML, links are unknown and has_links is false.
 *
 * NVSwitch.  On NVSwitch systems hwloc reports bandwidth between each GPU
 * and the NVSwitch PCI devices (subtype "NVSwitch") and none between GPUs;
 * the switch-to-switch trunks (DGX-2 joins the switches of its two
 * baseboards through the backplane) are not visible to NVML.  All
 * NVSwitches of a node form one fabric, so every GPU attached to a switch
 * is in one island and each pair gets the smaller of the two GPUs' switch
 * link counts (V100 on DGX-2: 6), the links a transfer between them can use.
 * (Slurm's AutoDetect=nvml counts only links whose far end is a GPU, so it
 * writes 0 for every pair of an NVSwitch node, which would make each GPU
 * its own island.)
 *
 * The JSON fragment (gp__probe_to_json / gp__probe_from_json), one object
 * per node:
 *
 *   { "gpuplace_probe": 1,                 format version
 *     "node": "dgx01",
 *     "source": "nvidiaDGX2.xml" | "",     XML file read, "" = live machine
 *     "gpus": [ { "bus_id": "0000:34:00.0", "type": "v100",
 *                 "model": "Tesla V100-SXM3-32GB-H", "backend": "NVML",
 *                 "file": "/dev/nvidia0" | "", "numa": 0 | -1,
 *                 "cores": "0-23" | "", "island": 0, "cpu_links": 0,
 *                 "rail": 0 | -1, "rail_affinity": "PIX" | "" }, ... ],
 *     "links": [ [ -1, 6, ... ], ... ],    ngpus x ngpus, Links= semantics
 *     "nislands": 1, "nvswitch": true, "link_mbps": 25000,
 *     "nics": [ { "bus_id": "0000:04:00.0", "name": "mlx5_0",
 *                 "netdev": "ib0", "numa": 1 }, ... ],
 *     "features": [ "nvl16", "rails8" ] }
 *
 * Rail affinity follows nvidia-smi topo's classes: PIX (at most one PCIe
 * bridge between GPU and NIC), PXB (several bridges, no host bridge), PHB
 * (through a PCIe host bridge), NODE (same NUMA node, different host
 * bridges), SYS (across NUMA nodes).
 *
 * Node features: "nvl<S>" where S is the size of the largest NVLink island
 * (absent without NVLink), "rails<N>" with N the number of HCAs (absent
 * without any).
 */
#ifndef GP_DISCOVER_H
#define GP_DISCOVER_H

#include <stdbool.h>
#include <stdio.h>

#include "model.h"

#define GP_PROBE_MAX_NICS 32
#define GP_PROBE_BUSID_MAX 16   /* "dddd:bb:dd.f" + NUL */
#define GP_PROBE_CORES_MAX 256

typedef enum gp_probe_affinity {
	GP_PROBE_AFF_NONE = -1,
	GP_PROBE_AFF_PIX = 0,
	GP_PROBE_AFF_PXB = 1,
	GP_PROBE_AFF_PHB = 2,
	GP_PROBE_AFF_NODE = 3,
	GP_PROBE_AFF_SYS = 4,
} gp_probe_affinity_t;

typedef struct gp_probe_gpu {
	char bus_id[GP_PROBE_BUSID_MAX];
	char type[GP_NAME_MAX];        /* gres Type=, lower case ("v100"), "" unknown */
	char model[GP_NAME_MAX];       /* hwloc GPUModel (or PCIDevice) */
	char backend[16];              /* "NVML", "CUDA", "RSMI", "LevelZero", "OpenCL", "PCI" */
	char file[GP_NAME_MAX];        /* gres File= ("/dev/nvidia3"), "" if unknown */
	char cores[GP_PROBE_CORES_MAX];/* gres Cores=, "" if unknown */
	int numa;                      /* NUMA node OS index, -1 = several or unknown */
	int cpu_links;                 /* NVLinks to CPUs (POWER8/9), 0 otherwise */
	int rail;                      /* index into nics of the closest HCA, -1 none */
	gp_probe_affinity_t rail_affinity;
} gp_probe_gpu_t;

typedef struct gp_probe_nic {
	char bus_id[GP_PROBE_BUSID_MAX];
	char name[GP_NAME_MAX];        /* OpenFabrics device ("mlx5_0") */
	char netdev[GP_NAME_MAX];      /* network interface on it ("ib0"), "" none */
	int numa;
} gp_probe_nic_t;

typedef struct gp_probe {
	char node[GP_NAME_MAX];
	char source[GP_PATH_MAX];      /* XML path, "" = this machine */
	int ngpus;
	gp_probe_gpu_t gpus[GP_MAX_GPUS_PER_NODE];
	/* links, island, nislands as in a loaded cluster; cores[] holds Cores=
	 * when it fits (else ""; gpus[].cores is always complete) */
	gp_gres_layout_t layout;
	bool nvlink;                   /* an NVLinkBandwidth matrix named some GPU */
	bool nvswitch;                 /* GPUs reach each other through NVSwitches */
	double link_mbps;              /* per-link bandwidth used to count links, 0 none */
	int nnics;
	gp_probe_nic_t nics[GP_PROBE_MAX_NICS];
	int nignored;                  /* GPU PCI devices no GPU backend lists */
} gp_probe_t;

/* Discover a node.  xml_path: a saved hwloc topology (hwloc 2 or 3 XML
 * format), or NULL for this machine.  node_name: the name written into the
 * emitted lines (NULL = gethostname(), cut at the first dot).  Both strings
 * stay the caller's.  *out (set to NULL first) is freed by the caller with
 * gp__probe_destroy().  A machine without GPUs is a success with ngpus 0.
 * Returns 0, GP_EIO (file unreadable), GP_EHWLOC (hwloc failed), GP_ELIMIT
 * (more than GP_MAX_GPUS_PER_NODE GPUs), GP_EINVAL, GP_ENOMEM; detail in err.
 * Not thread-safe with respect to the process environment (hwloc reads it). */
int gp__probe_load(const char *xml_path, const char *node_name, gp_probe_t **out,
                   gp_error_t *err);

/* Like gp__probe_load() from a saved topology held in memory: xml (len
 * bytes, need not be NUL-terminated; the caller keeps it) is read as the
 * file named what (used in messages and as the source).  Both loaders
 * first have the XML read by a checker process (forked on first use and
 * after a crash, then reused; it ends when this process does) and refuse
 * it with GP_EHWLOC when hwloc crashes on it, so a malformed file can
 * never end the caller.  Serialised by a lock; the fork makes it unfit for
 * a process whose other threads hold locks (slurmctld). */
int gp__probe_load_buffer(const char *xml, size_t len, const char *what, const char *node_name,
                          gp_probe_t **out, gp_error_t *err);

/* Free a probe result; NULL is a no-op. */
void gp__probe_destroy(gp_probe_t *p);

/* The node features (comma-separated, "" when none) into buf of size n.
 * Returns 0 or GP_ELIMIT if it does not fit. */
int gp__probe_features(const gp_probe_t *p, char *buf, size_t n);

/* The gres.conf line of GPU g without its NodeName= part
 * ("Name=gpu Type=v100 File=/dev/nvidia0 Cores=0-23 Links=-1,6,...").
 * Returns 0 or GP_ELIMIT if it does not fit in buf (size n). */
int gp__probe_gres_body(const gp_probe_t *p, int g, char *buf, size_t n);

/* Write the node's configuration to f: gres.conf lines (one per GPU, each
 * with Cores= and Links=), the slurm.conf Gres=/Features= to merge into the
 * node's NodeName line (as a comment), and the gpuplace.conf Rails= line.
 * With no GPU, writes a comment saying so.  Returns 0 or GP_EIO. */
int gp__probe_write_conf(const gp_probe_t *p, FILE *f, gp_error_t *err);

/* The JSON fragment (format above) as a malloc'd string the caller frees
 * with free().  Returns 0 or GP_ENOMEM. */
int gp__probe_to_json(const gp_probe_t *p, char **out, gp_error_t *err);

/* Parse a JSON fragment of len bytes (text need not be NUL-terminated).
 * *out (set to NULL first) is freed with gp__probe_destroy().  what names
 * the input in messages (a file name).  Returns 0 or GP_EJSON, GP_ELIMIT,
 * GP_ENOMEM; detail in err. */
int gp__probe_from_json(const char *text, size_t len, const char *what, gp_probe_t **out,
                        gp_error_t *err);

/* `gpuplace cluster merge`: write to f, from n nodes' probe results, the
 * gres.conf lines with nodes whose GPU lines are identical grouped under
 * one ranged host list (dgx[01-16], made by libslurm's hostlist
 * functions), the gpuplace.conf "NodeName=LIST Rails=N" lines of nodes
 * with HCAs grouped the same way, and the slurm.conf Gres=/Features= of
 * each group as comments.  Groups appear in the order of their first node.
 * p: n results, the caller's.  Returns 0, GP_EINVAL (a node given twice,
 * named in err), GP_ENOMEM, GP_ELIMIT, GP_EIO. */
int gp__probe_merge(gp_probe_t *const *p, int n, FILE *f, gp_error_t *err);

/* gres Type= from a GPU model or PCI device name into out (size n, "" when
 * nothing fits): the first word that is not a vendor or brand word, cut at
 * '-', lower case, letters and digits; inside the brackets of a PCI name.
 * "Tesla V100-SXM3-32GB-H" -> "v100", "GA100 [A100 SXM4 80GB]" -> "a100". */
void gp__probe_gpu_type(const char *model, char *out, size_t n);

/* The model name of a data-centre GPU by PCI vendor:device id (the PCI
 * ID Repository's name, e.g. 10de:2335 -> "H200 SXM 141GB"), or NULL when
 * the id is not one of them. */
const char *gp__probe_pci_gpu_name(unsigned vendor, unsigned device);

/* Short name of an affinity class ("PIX" ...), "" for GP_PROBE_AFF_NONE. */
const char *gp__probe_affinity_name(gp_probe_affinity_t a);

#endif /* GP_DISCOVER_H */
