# SPDX-License-Identifier: MIT
# Shared by the plot scripts: the caller (plot.sh) sets term and outfile.
set terminal @term
# Metric and case names carry underscores: no subscripts.
set termoption noenhanced
set output outfile
set grid xtics ytics mxtics mytics lc rgb '#dddddd'
set key top left box opaque
set border lw 1.2
# Curve label from a data file name: ".../<prefix>-<label>.dat" -> "<label>".
label_of(f) = substr(f, strstrt(f, "/" . prefix . "-") + strlen(prefix) + 2, strlen(f) - 4)
