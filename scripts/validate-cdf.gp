# SPDX-License-Identifier: MIT
# Validate latency CDF of one case; files: one "value_ns cumulative" file per size.
# Vars: files, vcase, term, outfile.
prefix = 'cdf-' . vcase
load dirname . '/common.gp'
set title sprintf("validate latency, case %s (CDF per BO size)", vcase)
set xlabel 'validate latency (ns, log scale)'
set ylabel 'fraction of validates at or below'
set logscale x
set yrange [0:1.02]
set key bottom right
plot for [f in files] f using 1:2 with steps lw 2 title label_of(f)
