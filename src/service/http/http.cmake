# zb_service_http: filled in by the HTTP work (issue 18).
