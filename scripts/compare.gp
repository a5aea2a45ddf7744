# SPDX-License-Identifier: MIT
# Current / baseline for each metric's ratio to its same-run reference, on a
# log2 axis so that half and double are as far from 1;
# file: "metric new_over_base verdict" (0 noise, 1 regressed, 2 improved).
# Vars: file.
prefix = 'compare'
load dirname . '/common.gp'
set title 'current / baseline of each ratio to its same-run reference (red: regressed, green: improved)'
set ylabel 'current / baseline'
set style fill solid 0.7 border -1
set boxwidth 0.7
set xtics rotate by -60 left font ',7' noenhanced
set key off
set logscale y 2
set format y '%gx'
set grid noxtics
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb '#444444'
set bmargin 14
colour(v) = v == 1 ? 0xcc0000 : (v == 2 ? 0x00a050 : 0x8080a0)
plot file using 0:2:(colour($3)):xtic(1) with boxes lc rgb variable
