scripts/gpu.sh tests > $OUT/tests_all.txt 2>&1; tail -3 $OUT/tests_all.txt
export TESSERA_BUILD_DIR=$PWD/build-gpu PYTHONPATH=$PWD/python TESSERA_CACHE_DIR=$(mktemp -d)
SIG="*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1, 128, 256, 64, 8"
build-gpu/tesserac compile examples/matmul.py --kernel matmul_kernel --signature "$SIG" --emit ptx --target sm_90a --num-warps 8 > $OUT/mm.ptx
ptxas -arch=sm_90a -O3 -v $OUT/mm.ptx -o /tmp/mm.cubin 2> $OUT/ptxas.txt; cuobjdump -sass /tmp/mm.cubin > $OUT/mm.sass 2>&1; wc -l $OUT/mm.sass
timeout 400 python3 bench/gpu.py --only matmul --out $OUT/bench.txt > $OUT/bench.log 2>&1; tail -25 $OUT/bench.log
