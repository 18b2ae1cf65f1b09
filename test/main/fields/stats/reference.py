"""
Independent field statistics for the exactness tests, with rasterio, shapely and numpy only.

Input (JSON on stdin): {"raster": path, "index": {"band": name} | {"a": name, "b": name},
"parcels": [{"index": i, "parts": [[ring, ...], ...]}] (coordinates in the raster's CRS)}.
Output (JSON): per parcel, per rule ("centre", "touched", "exact"), the statistics, and for
"exact" every pixel's weight {"row,col": shapely area fraction}.

Values: DN * scale + offset, with Swath's INT16 conventions when the file sets no SCALE (band
B<n>: 1/10000); nodata (the file's) and an undefined index are invalid. Centre and touched:
rasterio.features.rasterize (all_touched False / True), numpy mean, min, max, std (ddof 0) and
percentile (linear). Exact: polygon.intersection(pixel box).area / pixel area, and the weighted
statistics by the definition in main/fields/stats/statistics.ts, written here with numpy.
"""
import json
import sys

import numpy as np
import rasterio
from rasterio.features import rasterize
from shapely.geometry import MultiPolygon, Polygon, box, mapping


def geometry(parts):
    polys = [Polygon(rings[0], rings[1:]) for rings in parts]
    return polys[0] if len(polys) == 1 else MultiPolygon(polys)


def band_values(ds, name):
    names = [d or f"Band {i + 1}" for i, d in enumerate(ds.descriptions)]
    i = names.index(name)
    dn = ds.read(i + 1).astype(np.float64)
    scale = ds.scales[i] if ds.scales and ds.scales[i] not in (None, 1.0) else (1 / 10000 if ds.dtypes[i] == "int16" else 1.0)
    offset = ds.offsets[i] if ds.offsets and ds.offsets[i] is not None else 0.0
    v = dn * scale + offset
    if ds.nodata is not None:
        v[dn == ds.nodata] = np.nan
    return v


def weighted(v, w):
    if len(v) == 0:
        return None
    o = np.argsort(v, kind="stable")
    v, w = v[o], w[o]
    W = w.sum()
    mean = float(np.sum(w * v) / W)
    std = float(np.sqrt(np.sum(w * (v - mean) ** 2) / W))
    if len(v) == 1:
        pct = lambda p: float(v[0])
    else:
        u = (np.cumsum(w) - w / 2 - w[0] / 2) / (W - w[0] / 2 - w[-1] / 2)
        u[-1] = 1.0
        pct = lambda p: float(np.interp(p / 100, u, v))
    return dict(mean=mean, min=float(v.min()), max=float(v.max()), std=std, median=pct(50), p10=pct(10), p90=pct(90), weight=float(W))


def plain(v):
    if len(v) == 0:
        return None
    return dict(mean=float(v.mean()), min=float(v.min()), max=float(v.max()), std=float(v.std()),
                median=float(np.percentile(v, 50)), p10=float(np.percentile(v, 10)), p90=float(np.percentile(v, 90)), weight=float(len(v)))


def main():
    job = json.load(sys.stdin)
    with rasterio.open(job["raster"]) as ds:
        t = ds.transform
        idx = job["index"]
        if "band" in idx:
            values = band_values(ds, idx["band"])
        else:
            a, b = band_values(ds, idx["a"]), band_values(ds, idx["b"])
            with np.errstate(divide="ignore", invalid="ignore"):
                values = np.where(a + b == 0, np.nan, (a - b) / (a + b))
        height, width = ds.height, ds.width
    px_area = abs(t.a * t.e)
    out = []
    for p in job["parcels"]:
        g = geometry(p["parts"])
        res = {"index": p["index"]}
        for rule, touched in (("centre", False), ("touched", True)):
            mask = rasterize([(mapping(g), 1)], out_shape=(height, width), transform=t, all_touched=touched, fill=0, dtype="uint8").astype(bool)
            covered = int(mask.sum())
            v = values[mask]
            v = v[np.isfinite(v)]
            res[rule] = dict(stats=plain(v), covered=covered, coveredShare=covered * px_area / g.area, validShare=(len(v) / covered) if covered else 0.0,
                             cells=[[int(r), int(c)] for r, c in zip(*np.nonzero(mask))])
        minx, miny, maxx, maxy = g.bounds
        c0, c1 = max(0, int(np.floor((minx - t.c) / t.a))), min(width, int(np.ceil((maxx - t.c) / t.a)))
        r0, r1 = max(0, int(np.floor((maxy - t.f) / t.e))), min(height, int(np.ceil((miny - t.f) / t.e)))
        weights, vals, ws = {}, [], []
        covered = 0.0
        for r in range(r0, r1):
            for c in range(c0, c1):
                x0, y0 = t.c + c * t.a, t.f + r * t.e
                cell = box(x0, y0 + t.e, x0 + t.a, y0)
                f = g.intersection(cell).area / px_area
                if f <= 0:
                    continue
                weights[f"{r},{c}"] = f
                covered += f
                if np.isfinite(values[r, c]):
                    vals.append(values[r, c])
                    ws.append(f)
        s = weighted(np.array(vals), np.array(ws))
        res["exact"] = dict(stats=s, covered=covered, coveredShare=covered * px_area / g.area, validShare=(s["weight"] / covered) if s and covered else 0.0, weights=weights)
        out.append(res)
    json.dump(out, sys.stdout)


main()
