package githubpoll

import (
	"context"
	"errors"
	"net/http"
	"testing"

	gogithub "github.com/google/go-github/v90/github"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/github"
	"github.com/fullsend-dev/fullsend/internal/output"
	"github.com/fullsend-dev/fullsend/internal/output/ghadispatch"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/poll/pollcycle"
)

// dying is an output whose process dies during Dispatch: before sending
// the dispatch, or after GitHub accepted it but before settling.
type dying struct {
	*ghadispatch.Driver // FindDispatched: the cycle keys the runs
	gh                  *gogithub.Client
	afterSend           bool
}

func (d dying) Dispatch(ctx context.Context, runs []plan.Run) []output.Result {
	var out []output.Result
	for _, r := range runs {
		if d.afterSend {
			inputs := map[string]any{}
			for k, v := range r.Inputs() {
				inputs[k] = v
			}
			_, _, err := d.gh.Actions.CreateWorkflowDispatchEventByFileName(ctx, "acme", "platform", ghadispatch.DefaultWorkflow,
				gogithub.CreateWorkflowDispatchEventRequest{Ref: "main", Inputs: inputs})
			if err != nil {
				panic(err)
			}
		}
		out = append(out, output.Result{Run: r, Err: errors.New("the process died")})
	}
	return out
}

// TestCrash: a poller that dies before dispatching, or after dispatching
// but before settling, loses nothing and leaves no duplicate: a restarted
// poller dispatches the change exactly once in the first case and not
// again in the second, and the event path's late delivery of the change
// settles against the surviving run.
func TestCrash(t *testing.T) {
	for _, afterSend := range []bool{false, true} {
		name := map[bool]string{false: "before dispatch", true: "after dispatch, before settle"}[afterSend]
		t.Run(name, func(t *testing.T) {
			f, ctx := newFixture(t), context.Background()
			hook := f.comment(t, f.openIssue(t, false), "/fs-triage")
			f.settle()
			gh, err := github.NewClient(f.base, token, github.ClientOptions{HTTPClient: &http.Client{Transport: f.tr}})
			must(t, err)
			dead := f.out
			res, _ := pollcycle.Run(ctx, pollcycle.Options{Driver: NewDriver(f.poller(t), nil), Core: f.core, Output: dying{dead, gh, afterSend},
				JitterMax: -1, Now: f.clk.Now, Validate: (*event.Event).Validate, N: 1000})
			if res.Stats.DispatchesFailed != 1 {
				t.Fatalf("dying poller: %+v, want 1 failed dispatch", res.Stats)
			}
			want := map[bool]int{false: 1, true: 0}[afterSend]
			if st := f.cycle(t, NewDriver(f.poller(t), nil)); st.DispatchesScheduled != want {
				t.Fatalf("restarted poller dispatched %d, want %d", st.DispatchesScheduled, want)
			}
			f.checkOnce(t, 1)
			must(t, f.webhook(ctx, hook)) // the delivery arrives late: settled away
			f.checkOnce(t, 1)
		})
	}
}
