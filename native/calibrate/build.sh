#!/bin/sh
# Builds the calibration load (needs nvcc; runs only where a GPU is). Output: native/calibrate/build/nh-duty
set -e
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$here/build"
"${NVCC:-nvcc}" -O2 -std=c++17 -gencode arch=compute_90a,code=sm_90a -gencode arch=compute_80,code=compute_80 \
  -o "$here/build/nh-duty" "$here/duty.cu"
echo "$here/build/nh-duty"
