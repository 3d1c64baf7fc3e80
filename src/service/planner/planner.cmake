# zb_service_planner: filled in by the planner work (issue 18).
