"""Parses live simulator answers with pydantic v2 models of the shapes the production
service's public Python client expects (written from the facts in the team handbook, not
copied from that client), calling the service the way that client's example does.

Usage: python3 client_shapes.py BASE_URL API_KEY
Prints one JSON object: {"checks": [{"name", "ok", "error"}]}.
"""
import json
import sys
import urllib.error
import urllib.request
from datetime import date
from typing import Generic, List, Optional, TypeVar

from pydantic import BaseModel

T = TypeVar("T")


class ErrorInfo(BaseModel):
    Message: str
    Code: int


class Envelope(BaseModel, Generic[T]):
    # No defaults: all three keys must be present; Error may be null, Data may be null.
    Succeeded: bool
    Error: Optional[ErrorInfo]
    Data: Optional[T]


class AccountInfo(BaseModel):
    Key: str
    CreditAmount: float
    EuroCreditAmount: float
    CreditLimit: int
    EuroCreditLimit: int
    ContactInfo: str
    Email: Optional[str]
    MaxConcurrentConnections: int
    MaxCompositeAreaKm2: int
    MaxTotalBands: int
    CurrentMonthCosts: float
    NextMonthCosts: float


class GeogDates(BaseModel):
    Wkt: str
    Dates: List[str]


class ModelDates(BaseModel):
    Model: str
    SatelliteConstellations: List[str]
    DatesByGeog: List[GeogDates]


class SearchResults(BaseModel):
    ModelImageDates: List[ModelDates]


class CompositeEstimate(BaseModel):
    AreaEstimateKm2: float
    CreditEstimate: float


class SupportedConstellation(BaseModel):
    SatelliteConstellation: str
    Optional: bool


class TaskingModel(BaseModel):
    Model: str
    SupportedSatelliteConstellations: List[SupportedConstellation]


class TaskingModels(BaseModel):
    TaskingModels: List[TaskingModel]


class TaskOrder(BaseModel):
    TaskOrderGuid: str
    BillingCycle: str
    OrderingProcessStatus: str
    StorageMonths: int
    ApiRequests: int
    ImageFrequency: int
    TaskOrderAreaKm2: float
    Model: str
    ReferenceDate: date
    From: date
    To: Optional[date]
    SatelliteConstellations: List[str]
    Tiles: Optional[List[str]]
    Wkt: Optional[str]


class TaskOrders(BaseModel):
    TaskOrders: List[TaskOrder]


class EstimateCosts(BaseModel):
    CurrencyCode: str
    CurrentMonthOrderCostEstimate: float
    CurrentMonthStorageCosts: float
    NextMonthOrderCostEstimate: float
    NextMonthStorageCosts: float


class OrderEstimate(BaseModel):
    StorageMonths: int
    ApiRequests: int
    Model: str
    CancellationDate: date
    AreaKm2: float
    AreaKm2BeforeMinimum1Km2PerAoi: float
    CurrentMonthCost: float
    NextMonthCost: float
    Costs: EstimateCosts
    Tiles: Optional[List[str]]
    AreasOfInterestWkt: str
    SatelliteConstellations: List[str]
    ImageDates: List[date]


class Tile(BaseModel):
    Guid: str
    MiniTile: bool
    Epsg: str
    DataGeogWkt: str


class TileSearch(BaseModel):
    Tiles: List[Tile]


BASE, KEY = sys.argv[1], sys.argv[2]
SMALL_AOI = "POLYGON((13.40 52.50, 13.43 52.50, 13.43 52.52, 13.40 52.52, 13.40 52.50))"
ORDER_AOI = ("GEOMETRYCOLLECTION(POLYGON((4.80 45.70, 4.85 45.70, 4.85 45.74, 4.80 45.74, 4.80 45.70)), "
             "MULTIPOLYGON(((4.90 45.70, 4.903 45.70, 4.903 45.702, 4.90 45.70))))")
checks = []


def request(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(BASE + path, data=data, method=method, headers={"x-api-key": KEY})
    if body is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=120) as res:
            return res.status, dict(res.headers), res.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def check(name, method, path, model, body=None):
    """Calls, parses the envelope with the model, records the outcome; returns Data or None."""
    try:
        status, _, raw = request(method, path, body)
        if status != 200:
            raise ValueError(f"HTTP {status}: {raw[:300]!r}")
        env = Envelope[model].model_validate_json(raw)
        if not env.Succeeded or env.Error is not None or env.Data is None:
            raise ValueError(f"not a success envelope: {raw[:300]!r}")
        checks.append({"name": name, "ok": True, "error": None})
        return env.Data
    except Exception as e:  # noqa: BLE001 - every failure is reported, not raised
        checks.append({"name": name, "ok": False, "error": str(e)[:600]})
        return None


check("account info (apikey/info)", "GET", "/api/apikey/info", AccountInfo)
search = check("search/available", "POST", "/api/satelliteimages/search/available",
               SearchResults, {"Wkt": SMALL_AOI, "GeoJson": None, "From": "2026-01-01", "Until": date.today().isoformat()})
composite = {
    "Wkt": SMALL_AOI, "GeoJson": None, "Resolution": 40, "FileType": "tif", "EpsgProjection": 32633, "DataType": "int16",
    "UtmDataSelectionMode": "combined_utm", "Bandnames": "all", "PixelSelectionMode": "Intersect",
    "SatelliteConstellations": ["Sentinel1", "Sentinel2"], "Model": "stratus2", "UtmGridForcePixelResolutionSize": False,
}
check("composite estimate", "POST", "/api/satelliteimages/process/composite/estimate", CompositeEstimate, composite)
try:
    day = search.ModelImageDates[0].DatesByGeog[0].Dates[-1]
    status, headers, raw = request("POST", "/api/satelliteimages/process/composite", {**composite, "Date": day})
    if status != 200 or raw[:4] not in (b"II*\x00", b"MM\x00*"):
        raise ValueError(f"HTTP {status}, not a TIFF: {raw[:200]!r}")
    disposition = {k.lower(): v for k, v in headers.items()}.get("content-disposition", "")
    if "filename=" not in disposition:
        raise ValueError("no Content-Disposition filename")
    checks.append({"name": "composite download", "ok": True, "error": None})
except Exception as e:  # noqa: BLE001
    checks.append({"name": "composite download", "ok": False, "error": str(e)[:600]})
check("models", "GET", "/api/tasking/models", TaskingModels)
check("orders list", "GET", "/api/tasking/orders?recurringOnly=False&getExpired=True", TaskOrders)
tiles = check("tile search", "POST", "/api/tasking/search/tiles", TileSearch, {"Wkt": SMALL_AOI, "GeoJson": None, "TileGuids": None})
order = {
    "StorageMonths": 0, "ApiRequests": 0, "ImageFrequency": 7, "Model": "stratus2", "ReferenceDate": "2025-01-01",
    "From": "2026-10-01", "To": "2026-10-31", "SatelliteConstellations": ["Sentinel1", "Sentinel2"],
    "Tiles": None, "Wkt": ORDER_AOI, "GeoJson": None,
}
check("order estimate (GEOMETRYCOLLECTION)", "POST", "/api/tasking/orders/estimate", OrderEstimate, order)
created = check("order create", "POST", "/api/tasking/orders", TaskOrder, order)
if tiles is not None:
    check("order estimate (Tiles)", "POST", "/api/tasking/orders/estimate", OrderEstimate,
          {**order, "Wkt": None, "Tiles": [tiles.Tiles[0].Guid]})
if created is not None:
    status, _, raw = request("DELETE", f"/api/tasking/orders/cancel?taskOrderGuid={created.TaskOrderGuid}")
    ok = status == 200 and json.loads(raw).get("Succeeded") is True
    checks.append({"name": "order cancel", "ok": ok, "error": None if ok else f"HTTP {status}: {raw[:300]!r}"})
else:
    checks.append({"name": "order cancel", "ok": False, "error": "no order was created"})

print(json.dumps({"checks": checks}))
