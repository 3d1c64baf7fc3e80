# zb_service_queue: filled in by the queue work (issue 17).
