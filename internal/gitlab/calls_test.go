package gitlab

import (
	"context"

	gl "gitlab.com/gitlab-org/api/client-go"
)

// call is one client-go call the project makes, as it makes it; it returns
// what client-go decoded.
type call func(ctx context.Context, c *gl.Client) (any, error)

const (
	pid = "acme/platform" // a project path, escaped by client-go
	iid = int64(7)
	nid = int64(70)
)

func ret[T any](v T, _ *gl.Response, err error) (any, error) { return v, err }

// calls are every client-go call of the project, by "Service.Method"
// (TestEveryClientCallIsDriven keeps the table complete).
var calls = map[string]call{
	"Users.CurrentUser": func(ctx context.Context, c *gl.Client) (any, error) {
		return ret(c.Users.CurrentUser(gl.WithContext(ctx)))
	},
	"Users.GetUser": func(ctx context.Context, c *gl.Client) (any, error) {
		return ret(c.Users.GetUser(3, gl.GetUsersOptions{}, gl.WithContext(ctx)))
	},
	"Version.GetVersion": func(ctx context.Context, c *gl.Client) (any, error) {
		return ret(c.Version.GetVersion(gl.WithContext(ctx)))
	},
	"Projects.GetProject": func(ctx context.Context, c *gl.Client) (any, error) {
		return ret(c.Projects.GetProject(int64(5), nil, gl.WithContext(ctx)))
	},
	"ProjectMembers.GetInheritedProjectMember": func(ctx context.Context, c *gl.Client) (any, error) {
		return ret(c.ProjectMembers.GetInheritedProjectMember(pid, 3, gl.WithContext(ctx)))
	},
	"Issues.ListProjectIssues": func(ctx context.Context, c *gl.Client) (any, error) {
		return ret(c.Issues.ListProjectIssues(pid, &gl.ListProjectIssuesOptions{}, gl.WithContext(ctx)))
	},
	"Issues.GetIssue": func(ctx context.Context, c *gl.Client) (any, error) {
		return ret(c.Issues.GetIssue(pid, iid, gl.WithContext(ctx)))
	},
	"MergeRequests.ListProjectMergeRequests": func(ctx context.Context, c *gl.Client) (any, error) {
		return ret(c.MergeRequests.ListProjectMergeRequests(pid, &gl.ListProjectMergeRequestsOptions{}, gl.WithContext(ctx)))
	},
	"MergeRequests.GetMergeRequest": func(ctx context.Context, c *gl.Client) (any, error) {
		return ret(c.MergeRequests.GetMergeRequest(pid, iid, nil, gl.WithContext(ctx)))
	},
	"Notes.ListIssueNotes": func(ctx context.Context, c *gl.Client) (any, error) {
		return ret(c.Notes.ListIssueNotes(pid, iid, &gl.ListIssueNotesOptions{}, gl.WithContext(ctx)))
	},
	"Notes.ListMergeRequestNotes": func(ctx context.Context, c *gl.Client) (any, error) {
		return ret(c.Notes.ListMergeRequestNotes(pid, iid, &gl.ListMergeRequestNotesOptions{}, gl.WithContext(ctx)))
	},
	"Notes.GetIssueNote": func(ctx context.Context, c *gl.Client) (any, error) {
		return ret(c.Notes.GetIssueNote(pid, iid, nid, gl.WithContext(ctx)))
	},
	"Notes.GetMergeRequestNote": func(ctx context.Context, c *gl.Client) (any, error) {
		return ret(c.Notes.GetMergeRequestNote(pid, iid, nid, gl.WithContext(ctx)))
	},
	"Notes.CreateIssueNote": func(ctx context.Context, c *gl.Client) (any, error) {
		return ret(c.Notes.CreateIssueNote(pid, iid, &gl.CreateIssueNoteOptions{Body: gl.Ptr("x")}, gl.WithContext(WriteCtx(ctx))))
	},
	"Notes.CreateMergeRequestNote": func(ctx context.Context, c *gl.Client) (any, error) {
		return ret(c.Notes.CreateMergeRequestNote(pid, iid, &gl.CreateMergeRequestNoteOptions{Body: gl.Ptr("x")}, gl.WithContext(WriteCtx(ctx))))
	},
	"ResourceLabelEvents.ListIssueLabelEvents": func(ctx context.Context, c *gl.Client) (any, error) {
		return ret(c.ResourceLabelEvents.ListIssueLabelEvents(pid, iid, &gl.ListLabelEventsOptions{}, gl.WithContext(ctx)))
	},
	"ResourceLabelEvents.ListMergeRequestsLabelEvents": func(ctx context.Context, c *gl.Client) (any, error) {
		return ret(c.ResourceLabelEvents.ListMergeRequestsLabelEvents(pid, iid, &gl.ListLabelEventsOptions{}, gl.WithContext(ctx)))
	},
	"ResourceStateEvents.ListIssueStateEvents": func(ctx context.Context, c *gl.Client) (any, error) {
		return ret(c.ResourceStateEvents.ListIssueStateEvents(pid, iid, &gl.ListStateEventsOptions{}, gl.WithContext(ctx)))
	},
	"ResourceStateEvents.ListMergeStateEvents": func(ctx context.Context, c *gl.Client) (any, error) {
		return ret(c.ResourceStateEvents.ListMergeStateEvents(pid, iid, &gl.ListStateEventsOptions{}, gl.WithContext(ctx)))
	},
	"AwardEmoji.ListIssueAwardEmoji": func(ctx context.Context, c *gl.Client) (any, error) {
		return ret(c.AwardEmoji.ListIssueAwardEmoji(pid, iid, &gl.ListAwardEmojiOptions{}, gl.WithContext(ctx)))
	},
	"AwardEmoji.ListMergeRequestAwardEmoji": func(ctx context.Context, c *gl.Client) (any, error) {
		return ret(c.AwardEmoji.ListMergeRequestAwardEmoji(pid, iid, &gl.ListAwardEmojiOptions{}, gl.WithContext(ctx)))
	},
	"AwardEmoji.ListIssuesAwardEmojiOnNote": func(ctx context.Context, c *gl.Client) (any, error) {
		return ret(c.AwardEmoji.ListIssuesAwardEmojiOnNote(pid, iid, nid, &gl.ListAwardEmojiOptions{}, gl.WithContext(ctx)))
	},
	"AwardEmoji.ListMergeRequestAwardEmojiOnNote": func(ctx context.Context, c *gl.Client) (any, error) {
		return ret(c.AwardEmoji.ListMergeRequestAwardEmojiOnNote(pid, iid, nid, &gl.ListAwardEmojiOptions{}, gl.WithContext(ctx)))
	},
	"AwardEmoji.CreateIssueAwardEmoji": func(ctx context.Context, c *gl.Client) (any, error) {
		return ret(c.AwardEmoji.CreateIssueAwardEmoji(pid, iid, &gl.CreateAwardEmojiOptions{Name: "eyes"}, gl.WithContext(WriteCtx(ctx))))
	},
	"AwardEmoji.CreateMergeRequestAwardEmoji": func(ctx context.Context, c *gl.Client) (any, error) {
		return ret(c.AwardEmoji.CreateMergeRequestAwardEmoji(pid, iid, &gl.CreateAwardEmojiOptions{Name: "eyes"}, gl.WithContext(WriteCtx(ctx))))
	},
	"AwardEmoji.CreateIssuesAwardEmojiOnNote": func(ctx context.Context, c *gl.Client) (any, error) {
		return ret(c.AwardEmoji.CreateIssuesAwardEmojiOnNote(pid, iid, nid, &gl.CreateAwardEmojiOptions{Name: "eyes"}, gl.WithContext(WriteCtx(ctx))))
	},
	"AwardEmoji.CreateMergeRequestAwardEmojiOnNote": func(ctx context.Context, c *gl.Client) (any, error) {
		return ret(c.AwardEmoji.CreateMergeRequestAwardEmojiOnNote(pid, iid, nid, &gl.CreateAwardEmojiOptions{Name: "eyes"}, gl.WithContext(WriteCtx(ctx))))
	},
	"Pipelines.ListProjectPipelines": func(ctx context.Context, c *gl.Client) (any, error) {
		return ret(c.Pipelines.ListProjectPipelines(pid, &gl.ListProjectPipelinesOptions{Name: gl.Ptr("fullsend-x")}, gl.WithContext(ctx)))
	},
	"Pipelines.GetPipeline": func(ctx context.Context, c *gl.Client) (any, error) {
		return ret(c.Pipelines.GetPipeline(pid, 11, gl.WithContext(ctx)))
	},
	"Pipelines.GetPipelineVariables": func(ctx context.Context, c *gl.Client) (any, error) {
		return ret(c.Pipelines.GetPipelineVariables(pid, 11, gl.WithContext(ctx)))
	},
	"Pipelines.CreatePipeline": func(ctx context.Context, c *gl.Client) (any, error) {
		return ret(c.Pipelines.CreatePipeline(pid, &gl.CreatePipelineOptions{Ref: gl.Ptr("main")}, gl.WithContext(WriteCtx(ctx))))
	},
	"Pipelines.CancelPipelineBuild": func(ctx context.Context, c *gl.Client) (any, error) {
		return ret(c.Pipelines.CancelPipelineBuild(pid, 11, gl.WithContext(WriteCtx(ctx))))
	},
	"Jobs.ListPipelineJobs": func(ctx context.Context, c *gl.Client) (any, error) {
		return ret(c.Jobs.ListPipelineJobs(pid, 11, &gl.ListJobsOptions{}, gl.WithContext(ctx)))
	},
	"ResourceGroup.GetASpecificResourceGroup": func(ctx context.Context, c *gl.Client) (any, error) {
		return ret(c.ResourceGroup.GetASpecificResourceGroup(pid, "fullsend-x", gl.WithContext(ctx)))
	},
	"ResourceGroup.EditAnExistingResourceGroup": func(ctx context.Context, c *gl.Client) (any, error) {
		mode := gl.ResourceGroupProcessMode("newest_first")
		return ret(c.ResourceGroup.EditAnExistingResourceGroup(pid, "fullsend-x",
			&gl.EditAnExistingResourceGroupOptions{ProcessMode: &mode}, gl.WithContext(WriteCtx(ctx))))
	},
}
