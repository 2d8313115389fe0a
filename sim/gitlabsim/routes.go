package gitlabsim

// Route is one endpoint of the emulated API: its name (Calls,
// InjectFault, SetHook), method and path under /api/v4 in GitLab's
// documentation notation.
type Route struct {
	Endpoint, Method, Path string
}

// routes is the emulator's route table. parseRoute may only produce
// these endpoints (serve answers 500 for any other), and every route has
// a contract case (contract_test.go).
var routes = []Route{
	{"get_project", "GET", "/projects/:id"},
	{"create_pipeline", "POST", "/projects/:id/pipeline"},
	{"list_pipelines", "GET", "/projects/:id/pipelines"},
	{"get_pipeline", "GET", "/projects/:id/pipelines/:pipeline_id"},
	{"pipeline_jobs", "GET", "/projects/:id/pipelines/:pipeline_id/jobs"},
	{"pipeline_variables", "GET", "/projects/:id/pipelines/:pipeline_id/variables"},
	{"cancel_pipeline", "POST", "/projects/:id/pipelines/:pipeline_id/cancel"},
	{"get_job", "GET", "/projects/:id/jobs/:job_id"},
	{"cancel_job", "POST", "/projects/:id/jobs/:job_id/cancel"},
	{"list_resource_groups", "GET", "/projects/:id/resource_groups"},
	{"get_resource_group", "GET", "/projects/:id/resource_groups/:key"},
	{"edit_resource_group", "PUT", "/projects/:id/resource_groups/:key"},
	{"upcoming_jobs", "GET", "/projects/:id/resource_groups/:key/upcoming_jobs"},
	{"list_issues", "GET", "/projects/:id/issues"},
	{"list_merge_requests", "GET", "/projects/:id/merge_requests"},
	{"get_issue", "GET", "/projects/:id/issues/:issue_iid"},
	{"get_merge_request", "GET", "/projects/:id/merge_requests/:merge_request_iid"},
	{"issue_notes", "GET", "/projects/:id/issues/:issue_iid/notes"},
	{"merge_request_notes", "GET", "/projects/:id/merge_requests/:merge_request_iid/notes"},
	{"get_issue_note", "GET", "/projects/:id/issues/:issue_iid/notes/:note_id"},
	{"get_merge_request_note", "GET", "/projects/:id/merge_requests/:merge_request_iid/notes/:note_id"},
	{"issue_label_events", "GET", "/projects/:id/issues/:issue_iid/resource_label_events"},
	{"merge_request_label_events", "GET", "/projects/:id/merge_requests/:merge_request_iid/resource_label_events"},
	{"issue_state_events", "GET", "/projects/:id/issues/:issue_iid/resource_state_events"},
	{"merge_request_state_events", "GET", "/projects/:id/merge_requests/:merge_request_iid/resource_state_events"},
	{"create_issue_note", "POST", "/projects/:id/issues/:issue_iid/notes"},
	{"create_merge_request_note", "POST", "/projects/:id/merge_requests/:merge_request_iid/notes"},
	{"list_issue_emoji", "GET", "/projects/:id/issues/:issue_iid/award_emoji"},
	{"award_issue_emoji", "POST", "/projects/:id/issues/:issue_iid/award_emoji"},
	{"list_merge_request_emoji", "GET", "/projects/:id/merge_requests/:merge_request_iid/award_emoji"},
	{"award_merge_request_emoji", "POST", "/projects/:id/merge_requests/:merge_request_iid/award_emoji"},
	{"list_issue_note_emoji", "GET", "/projects/:id/issues/:issue_iid/notes/:note_id/award_emoji"},
	{"award_issue_note_emoji", "POST", "/projects/:id/issues/:issue_iid/notes/:note_id/award_emoji"},
	{"list_merge_request_note_emoji", "GET", "/projects/:id/merge_requests/:merge_request_iid/notes/:note_id/award_emoji"},
	{"award_merge_request_note_emoji", "POST", "/projects/:id/merge_requests/:merge_request_iid/notes/:note_id/award_emoji"},
	{"get_member_all", "GET", "/projects/:id/members/all/:user_id"},
	{"get_user", "GET", "/users/:id"},
	{"current_user", "GET", "/user"},
}

var routed = func() map[string]bool {
	m := map[string]bool{}
	for _, r := range routes {
		m[r.Endpoint] = true
	}
	return m
}()

// Routes returns the route table.
func Routes() []Route { return append([]Route(nil), routes...) }
