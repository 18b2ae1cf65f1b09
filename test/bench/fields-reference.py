"""
The rasterio + numpy reference of the fields bench: for each raster given, each parcel's window
read with rasterio (both bands), the centre-rule mask of the parcel with
rasterio.features.geometry_mask, NDVI (DN / 10000 reflectances, nodata and A + B = 0 invalid) and
numpy's mean, min, max, std, median, p10 and p90 of the valid pixels. Prints the results computed
and the seconds the loop took (the interpreter's start and imports are not counted).

argv: parcels.json (a list of polygons, each its rings of [x, y] in the rasters' CRS), then the rasters.
"""
import json
import sys
import time

import numpy as np
import rasterio
from rasterio.features import geometry_mask
from rasterio.windows import from_bounds
from shapely.geometry import Polygon, mapping

polys = [Polygon(p[0], p[1:]) for p in json.load(open(sys.argv[1]))]
t0 = time.perf_counter()
results = 0
for raster in sys.argv[2:]:
    with rasterio.open(raster) as ds:
        nodata = ds.nodata
        for g in polys:
            win = from_bounds(*g.bounds, transform=ds.transform).round_offsets(op="floor").round_lengths(op="ceil")
            win = win.intersection(rasterio.windows.Window(0, 0, ds.width, ds.height))
            dn = ds.read((1, 2), window=win).astype(np.float64)
            inside = ~geometry_mask([mapping(g)], out_shape=dn.shape[1:], transform=ds.window_transform(win))
            a, b = dn[0] / 10000, dn[1] / 10000
            ok = inside & (dn[0] != nodata) & (dn[1] != nodata) & (a + b != 0)
            v = (a[ok] - b[ok]) / (a[ok] + b[ok])
            if v.size:
                stats = (v.mean(), v.min(), v.max(), v.std(), *np.percentile(v, [50, 10, 90]))
            results += 1
print(json.dumps({"results": results, "seconds": time.perf_counter() - t0}))
