package jirapoll

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/fullsend-dev/fullsend/internal/cursor"
	"github.com/fullsend-dev/fullsend/internal/jira"
	"github.com/fullsend-dev/fullsend/internal/jirakey"
)

// How discovery pages through issues updated in one instant (docs/jira.md,
// "Issue key comparisons"; package jira's keycompare.go).
//
// A pass reads a query in position order (update time, then issue id) and
// asks each page for what follows the last issue of the one before. Where
// Jira compares issue ids as numbers across projects, that is the keyset
// `updated > T OR id > ID`, with jira.IDWitness OR'ed to it: the witness
// adds nothing there, and elsewhere makes the search refused (400) or
// answered with issues at or before the position, never short of the
// issues of that instant that `id > ID` would pass over where it reads as
// "ID's project, numbered after it". A search so refused or so answered
// is asked again at once without an id, excluding by key the issues this
// pass already read at that instant (`updated > T OR NOT key in (…)`),
// which needs no key comparison; the site is then known not to compare
// ids (keysetState, remembered by the Jira client, whose memory the state
// file keeps), and from then on positions carry no id: the discovery
// cursor is never written inside an instant.

// keysetState is whether the site compares issue ids as numbers.
type keysetState struct {
	off atomic.Bool // it does not: positions carry no id
	// stuck is the latest instant reported as too large to walk in one
	// discovery without ids (Discover's alone).
	stuck time.Time
}

// idFacts is where the site's answer is remembered beyond the process:
// the Jira client, whose Memory the state file keeps (*jira.Client).
type idFacts interface {
	IDsNotNumeric() bool
	NoteIDsNotNumeric()
}

// numericIDs reports whether positions may carry an issue id: the site
// was not seen not to compare ids as numbers (by this driver, or by its
// client, which may remember it from the state file).
func (d *Driver) numericIDs() bool {
	if d.keyset.off.Load() {
		return false
	}
	if f, ok := d.o.API.(idFacts); ok && f.IDsNotNumeric() {
		d.keyset.off.Store(true)
		return false
	}
	return true
}

// refuseNumericIDs records that the site does not compare ids as numbers
// (why): once, logged.
func (d *Driver) refuseNumericIDs(why error) {
	if d.keyset.off.Swap(true) {
		return
	}
	if f, ok := d.o.API.(idFacts); ok {
		f.NoteIDsNotNumeric()
	}
	d.o.Log.Info("Jira does not compare issue ids as numbers across projects (a search comparing them was refused, or answered "+
		"with issues it excludes); discovery pages through an instant by issue key from now on", "error", why.Error())
}

// noteStuck reports, once per instant, a walk that spent a whole pass in
// one instant where positions carry no id: the cursor cannot pass it.
func (d *Driver) noteStuck(w *walk) {
	if d.numericIDs() || len(w.keys) < (d.o.MaxPages-1)*d.o.M || w.pos.At.Equal(d.keyset.stuck) {
		return
	}
	d.keyset.stuck = w.pos.At
	d.o.Log.Warn("more issues were updated in one millisecond than a cycle reads, and Jira does not compare issue ids as numbers: "+
		"the discovery cursor stays before that millisecond and every cycle reads its first pages again; a change in it beyond "+
		"them waits until its issue changes again (docs/jira.md, \"Issue key comparisons\")",
		"at", w.pos.At.UTC().Format(time.RFC3339Nano), "issues", len(w.keys))
}

// walk is a pass's position: the last issue of its latest full page and
// the issues it read at that issue's instant.
type walk struct {
	asc  bool
	pos  cursor.Pos // zero: the pass starts unbounded
	keys []string   // the issues read at pos.At, in reading order
}

// follow moves w to the last issue of page (a full page, in pass order).
func (w *walk) follow(page []jira.Issue) {
	last := page[len(page)-1]
	at := last.Fields.Updated.Time
	if !at.Equal(w.pos.At) {
		w.keys = w.keys[:0]
	}
	for _, is := range page {
		if is.Fields.Updated.Time.Equal(at) && jirakey.ValidIssue(is.Key) {
			w.keys = append(w.keys, is.Key)
		}
	}
	w.pos = issuePos(last)
}

// form is one way of asking for what follows w: its restriction and
// whether it compares issue ids.
type form struct {
	jql string
	ids bool
}

// forms are the restrictions that ask for what follows w, the first the
// preferred: with the issue id (where ids may compare as numbers), with
// the keys read at the instant excluded, or by the update time alone
// (the instant's issues come again, and are skipped as seen). One form
// "" when w has no position.
func (w *walk) forms(numeric bool) []form {
	if w.pos.At.IsZero() {
		return []form{{}}
	}
	ms := jira.Millis(w.pos.At)
	from, beyond, idOp := "updated >= ", "updated > ", " > "
	if !w.asc {
		from, beyond, idOp = "updated <= ", "updated < ", " < "
	}
	var out []form
	if numeric && w.pos.ID > 0 {
		out = append(out, form{from + ms + " AND (" + beyond + ms + " OR id" + idOp + strconv.FormatInt(w.pos.ID, 10) +
			" OR " + jira.IDWitness + ")", true})
	}
	if notIn, err := jira.NotKeyIn(w.keys); err == nil {
		out = append(out, form{from + ms + " AND (" + beyond + ms + " OR " + notIn + ")", false})
	}
	return append(out, form{from + ms, false})
}

// overAnswered reports whether an answer to the id form of w holds an
// issue at w's instant on the wrong side of its id, which a site that
// compares ids as numbers never answers.
func (w *walk) overAnswered(issues []jira.Issue) bool {
	for _, is := range issues {
		p := issuePos(is)
		if p.At.Equal(w.pos.At) && (w.asc && p.ID <= w.pos.ID || !w.asc && p.ID >= w.pos.ID) {
			return true
		}
	}
	return false
}

// page reads the page of pass ps that follows w (with held, a `key in`
// clause, read along), trying w's forms in order: a form Jira refuses
// (400) is followed by the next, and so is the id form when its answer
// shows the site does not compare ids as numbers (overAnswered: without
// held issues, which may be at the position's instant); the site is then
// known so once a later form answers (refuseNumericIDs).
// The error is the last form's.
func (d *Driver) page(ctx context.Context, ps passSpec, w *walk, held, order string) (issues []jira.Issue, err error) {
	forms := w.forms(d.numericIDs())
	var refused error
	for i, f := range forms {
		clause := f.jql
		if held != "" {
			clause = "(" + clause + ") OR " + held
		}
		req := jira.SearchRequest{JQL: jira.And(ps.where, clause) + " " + order, Fields: d.ent.searchFields(),
			Properties: []string{d.lockKey, d.checkKey, d.receiptsKey}, MaxResults: d.o.M, ReconcileIssues: d.recent()}
		issues, err = d.o.API.Search(ctx, req, d.o.M)
		if f.ids && err == nil && held == "" && w.overAnswered(issues) {
			err = fmt.Errorf("the search after issue id %d answered issues at or before it", w.pos.ID)
			refused = err
			continue // the last form has no ids
		}
		if !jira.IsBadRequest(err) || i == len(forms)-1 {
			break
		}
		if f.ids {
			refused = err
		}
	}
	if err == nil && refused != nil {
		d.refuseNumericIDs(refused)
	}
	return issues, err
}

// issuePos is an issue's position (its id 0 when Jira gave none).
func issuePos(is jira.Issue) cursor.Pos {
	id, _ := strconv.ParseInt(is.ID, 10, 64)
	return cursor.Pos{At: is.Fields.Updated.Time, ID: max(id, 0)}
}

// tallied is the position the tally notes for an issue updated at at with
// id: without the id where the site does not compare ids as numbers (a
// cursor position inside an instant could not be searched from).
func (d *Driver) tallied(at time.Time, id int64) cursor.Pos {
	if !d.numericIDs() {
		id = 0
	}
	return cursor.Pos{At: at, ID: id}
}
