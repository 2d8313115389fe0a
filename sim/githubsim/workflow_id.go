package githubsim

import "strconv"

// workflow finds the workflow a path names: "The ID of the workflow. You
// can also pass the workflow file name as a string." (GitHub's REST
// description of {workflow_id}); the id is the one the run objects'
// workflow_id carry.
func (st *repoState) workflow(repo, name string) (Workflow, bool) {
	if wf, ok := st.workflows[name]; ok {
		return wf, true
	}
	id, err := strconv.ParseInt(name, 10, 64)
	if err != nil {
		return Workflow{}, false
	}
	for file, wf := range st.workflows {
		if hashID("workflow:"+repo, file) == id {
			return wf, true
		}
	}
	return Workflow{}, false
}
