#!/bin/bash
# HyperPod lifecycle script for EKS-orchestrated instance groups, uploaded by InstantStart.
# Runs once on every new node. Keep it idempotent: HyperPod reruns it when it replaces a node.
set -euo pipefail
exec > >(tee -a /var/log/instantstart-on-create.log) 2>&1
echo "instantstart on_create: $(date -Is) on $(hostname)"
# Secondary EBS volumes are mounted by HyperPod at /opt/sagemaker; container images and logs go there.
if [ -d /opt/sagemaker ]; then
  mkdir -p /opt/sagemaker/containerd /opt/sagemaker/logs
fi
echo "instantstart on_create: done"
