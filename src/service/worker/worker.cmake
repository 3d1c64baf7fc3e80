# zb_service_worker: filled in by the worker work (issue 17).
