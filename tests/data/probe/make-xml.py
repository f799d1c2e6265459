#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Writes the synthetic hwloc 2.0 XML topologies of tests/data/probe:
#   python3 make-xml.py tests/data/probe
import sys
def machine(ngpu_per_sw, nsockets, nvlink, model, fname, hca=True, bw=None, kind='nvidia', bmc=False):
    gp=[100]
    def g():
        gp[0]+=1; return gp[0]
    cores_per=4
    allc=(1<<(cores_per*nsockets))-1
    out=[]
    W=out.append
    W('<?xml version="1.0" encoding="UTF-8"?>')
    W('<!DOCTYPE topology SYSTEM "hwloc2.dtd">')
    W('<topology version="2.0">')
    W('  <object type="Machine" os_index="0" cpuset="0x%08x" complete_cpuset="0x%08x" allowed_cpuset="0x%08x" nodeset="0x%08x" complete_nodeset="0x%08x" allowed_nodeset="0x%08x" gp_index="1">'%(allc,allc,allc,(1<<nsockets)-1,(1<<nsockets)-1,(1<<nsockets)-1))
    gpus=[]; n=0
    for s in range(nsockets):
        cs=((1<<cores_per)-1)<<(s*cores_per); ns=1<<s
        W('    <object type="Package" os_index="%d" cpuset="0x%08x" complete_cpuset="0x%08x" nodeset="0x%08x" complete_nodeset="0x%08x" gp_index="%d">'%(s,cs,cs,ns,ns,g()))
        W('      <object type="NUMANode" os_index="%d" cpuset="0x%08x" complete_cpuset="0x%08x" nodeset="0x%08x" complete_nodeset="0x%08x" gp_index="%d" local_memory="68719476736"/>'%(s,cs,cs,ns,ns,g()))
        for c in range(cores_per):
            i=s*cores_per+c; b=1<<i
            W('      <object type="Core" os_index="%d" cpuset="0x%08x" complete_cpuset="0x%08x" nodeset="0x%08x" complete_nodeset="0x%08x" gp_index="%d">'%(c,b,b,ns,ns,g()))
            W('        <object type="PU" os_index="%d" cpuset="0x%08x" complete_cpuset="0x%08x" nodeset="0x%08x" complete_nodeset="0x%08x" gp_index="%d"/>'%(i,b,b,ns,ns,g()))
            W('      </object>')
        base=0x80*s
        nb=ngpu_per_sw+(1 if hca else 0)
        W('      <object type="Bridge" gp_index="%d" bridge_type="0-1" depth="0" bridge_pci="0000:[%02x-%02x]">'%(g(),base,base+0x10))
        W('        <object type="Bridge" gp_index="%d" bridge_type="1-1" depth="1" bridge_pci="0000:[%02x-%02x]" pci_busid="0000:%02x:01.0" pci_type="0604 [8086:2030] [8086:0000] 04 00" pci_link_speed="15.753846">'%(g(),base+1,base+2+nb,base))
        W('          <object type="Bridge" gp_index="%d" bridge_type="1-1" depth="2" bridge_pci="0000:[%02x-%02x]" pci_busid="0000:%02x:00.0" pci_type="0604 [10b5:9781] [10b5:9781] b0 00" pci_link_speed="15.753846">'%(g(),base+2,base+2+nb,base+1))
        for k in range(nb):
            bus=base+3+k
            W('            <object type="Bridge" gp_index="%d" bridge_type="1-1" depth="3" bridge_pci="0000:[%02x-%02x]" pci_busid="0000:%02x:%02x.0" pci_type="0604 [10b5:9781] [10b5:9781] b0 00" pci_link_speed="15.753846">'%(g(),bus,bus,base+2,k))
            if k<ngpu_per_sw:
                pt={'nvidia':"0302 [10de:20b0] [10de:134f] a1 00",'pci':"0302 [10de:20b0] [10de:134f] a1 00",
                    'rsmi':"0380 [1002:740c] [1002:0b0c] 01 00"}[kind]
                W('              <object type="PCIDev" gp_index="%d" pci_busid="0000:%02x:00.0" pci_type="%s" pci_link_speed="15.753846">'%(g(),bus,pt))
                og=g(); gpus.append(og)
                if kind=='pci':
                    W('                <info name="PCIVendor" value="NVIDIA Corporation"/>')
                    W('                <info name="PCIDevice" value="%s"/>'%model)
                elif kind=='rsmi':
                    W('                <object type="OSDev" gp_index="%d" name="rsmi%d" subtype="RSMI" osdev_type="1">'%(og,n))
                    W('                  <info name="Backend" value="RSMI"/>')
                    W('                  <info name="GPUVendor" value="AMD"/>')
                    W('                  <info name="GPUModel" value="%s"/>'%model)
                    W('                </object>')
                else:
                    W('                <object type="OSDev" gp_index="%d" name="nvml%d" subtype="NVML" osdev_type="1">'%(og,n))
                    W('                  <info name="Backend" value="NVML"/>')
                    W('                  <info name="GPUVendor" value="NVIDIA Corporation"/>')
                    W('                  <info name="GPUModel" value="%s"/>'%model)
                    W('                </object>')
                    W('                <object type="OSDev" gp_index="%d" name="cuda%d" subtype="CUDA" osdev_type="5">'%(g(),n))
                    W('                  <info name="GPUModel" value="%s"/>'%model)
                    W('                </object>')
                W('              </object>')
                n+=1
            else:
                W('              <object type="PCIDev" gp_index="%d" pci_busid="0000:%02x:00.0" pci_type="0207 [15b3:101b] [15b3:0007] 00 00" pci_link_speed="31.507692">'%(g(),bus))
                W('                <object type="OSDev" gp_index="%d" name="ib%d" osdev_type="2"/>'%(g(),s))
                W('                <object type="OSDev" gp_index="%d" name="mlx5_%d" osdev_type="3"/>'%(g(),s))
                W('              </object>')
            W('            </object>')
        W('          </object>')
        W('        </object>')
        if bmc and s==0:
            # the baseboard management controller's VGA: not a GPU
            W('        <object type="Bridge" gp_index="%d" bridge_type="1-1" depth="1" bridge_pci="0000:[%02x-%02x]" pci_busid="0000:%02x:1c.0" pci_type="0604 [8086:a190] [8086:0000] f0 00" pci_link_speed="0.250000">'%(g(),base+0x0f,base+0x0f,base))
            W('          <object type="PCIDev" gp_index="%d" pci_busid="0000:%02x:00.0" pci_type="0300 [1a03:2000] [1a03:2000] 41 00" pci_link_speed="0.250000">'%(g(),base+0x0f))
            W('            <info name="PCIVendor" value="ASPEED Technology, Inc."/>')
            W('            <info name="PCIDevice" value="ASPEED Graphics Family"/>')
            W('            <object type="OSDev" gp_index="%d" name="card0" osdev_type="1"/>'%g())
            W('          </object>')
            W('        </object>')
        W('      </object>')
        W('    </object>')
    W('  </object>')
    if nvlink:
        N=len(gpus)
        W('  <distances2hetero nbobjs="%d" kind="25" name="NVLinkBandwidth">'%N)
        idx=" ".join("OSDev:%d"%x for x in gpus)+" "
        W('    <indexes length="%d">%s</indexes>'%(len(idx),idx))
        vals=[]
        for i in range(N):
            for j in range(N):
                vals.append(1000000 if i==j else bw(i,j))
        v=" ".join(map(str,vals))+" "
        W('    <u64values length="%d">%s</u64values>'%(len(v),v))
        W('  </distances2hetero>')
    W('</topology>')
    open(fname,'w').write("\n".join(out)+"\n")

d=sys.argv[1]
# 2 sockets x (PCIe switch with 2 GPUs + 1 HCA); NVLink: 0-1 4 links, 2-3 2 links
def bw1(i,j):
    p={frozenset((0,1)):100000, frozenset((2,3)):50000}
    return p.get(frozenset((i,j)),0)
machine(2,2,True,"NVIDIA A100-SXM4-40GB",d+"/switch-gpu-hca.xml",bw=bw1)
# same but bandwidths that are not multiples of 25000: fallback to min nonzero
def bw2(i,j):
    p={frozenset((0,1)):60000, frozenset((2,3)):30000}
    return p.get(frozenset((i,j)),0)
machine(2,2,True,"NVIDIA A100-SXM4-40GB",d+"/odd-bandwidth.xml",bw=bw2)
# 33 GPUs: more than gpuplace handles per node
machine(33,1,False,"NVIDIA A100-SXM4-40GB",d+"/too-many-gpus.xml",hca=False)
# AMD GPUs seen through ROCm SMI only (no NVLink matrix), with a BMC VGA
machine(2,1,False,"AMD Instinct MI250X",d+"/rsmi-amd.xml",kind='rsmi',bmc=True)
# hwloc without GPU backends: NVIDIA 3D controllers by PCI class, a BMC VGA
machine(2,1,False,"GA100 [A100 SXM4 40GB]",d+"/pci-class-only.xml",kind='pci',bmc=True)
# NVML without an NVLinkBandwidth matrix: PCIe GPUs (no NVLink), and
# Blackwell GPUs whose NVLink 5 hwloc 2.9 does not measure (unknown)
machine(2,1,False,"NVIDIA L40S",d+"/nvml-pcie.xml")
machine(2,1,False,"NVIDIA B200",d+"/nvml-b200-no-matrix.xml")
# NVLink from one GPU to both packages at 127 links each (as POWER9 nodes
# report CPU NVLink): its CPU link count is capped at 127, the fragment's
# range, not summed past it (libFuzzer found 254).  switch-gpu-hca.xml
# with a 6-object matrix.
import re
src=open(d+"/switch-gpu-hca.xml").read()
pk=re.findall(r'type="Package"[^>]*gp_index="(\d+)"',src)
idx="OSDev:116 OSDev:120 OSDev:141 OSDev:145 Package:%s Package:%s "%(pk[0],pk[1])
gbw={(0,1):100000,(2,3):50000}
vals=[]
for i in range(6):
    for j in range(6):
        if i==j: vals.append(1000000)
        elif i<4 and j<4: vals.append(gbw.get((min(i,j),max(i,j)),0))
        elif 0 in (i,j): vals.append(127*50000)
        else: vals.append(0)
v=" ".join(map(str,vals))+" "
m='  <distances2hetero nbobjs="6" kind="25" name="NVLinkBandwidth">\n    <indexes length="%d">%s</indexes>\n    <u64values length="%d">%s</u64values>\n  </distances2hetero>'%(len(idx),idx,len(v),v)
open(d+"/nvlink-cpu-links-sum.xml","w").write(re.sub(r'  <distances2hetero nbobjs="4".*?</distances2hetero>',lambda _: m,src,flags=re.S))
# hwloc sizes its root cpuset and nodeset to the os_index of every PU and
# NUMA node; without os_index that index is 2^32 - 1 and the bitmap 512 MB.
# The probe refuses these before hwloc reads them (libFuzzer found the
# first; `gpuplace probe --xml` reached 533 MB on it).
src=open(d+"/switch-gpu-hca.xml").read()
open(d+"/big-pu-no-os-index.xml","w").write(src.replace('<object type="PU" os_index="1" ','<object type="PU" ',1))
open(d+"/big-numa-os-index.xml","w").write(src.replace('<object type="NUMANode" os_index="1" ','<object type="NUMANode" os_index="4294967295" ',1))
# an attribute out of hwloc's form: hwloc's reader stops at it and never
# sees the os_index after it
pu1=re.search(r'<object type="PU" os_index="1" [^>]*/>',src).group(0)
open(d+"/big-pu-attr-form.xml","w").write(src.replace(pu1,pu1.replace(' os_index="1"','').replace('/>',' cpus=2 os_index="1"/>'),1))
