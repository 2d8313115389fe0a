package jira

// Issue-key comparisons. Atlassian documents id, key and issuekey as one
// JQL clause whose comparisons (>, >=, <, <=) are between issue keys, and
// a site may read them in more than one way: ids compared as numbers
// across projects; issue numbers compared within the operand's project,
// an operand that names no issue being refused, or matching nothing; or
// not at all ("The operator '>' is not supported"). Only the first makes
// `id > 10042` a keyset across projects. IDWitness tells them apart at no
// cost: OR'ed to a comparison, it adds nothing where ids compare as
// numbers, and elsewhere makes the search either refused (400) or
// answered with issues the comparison excludes, never silently short.
// docs/jira.md, "Issue key comparisons".

// IDWitness is a clause that matches no issue where issue ids compare as
// numbers (every id is positive) and, where they do not, is refused (0
// names no issue, or comparisons are not supported) or matches every
// issue (a comparison with an operand that names no issue matches
// nothing).
const IDWitness = "NOT id > 0"

// IDsNotNumeric reports whether this site was seen not to compare issue
// ids as numbers (NoteIDsNotNumeric); kept in Memory.
func (c *Client) IDsNotNumeric() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.idsNotNumeric
}

// NoteIDsNotNumeric records that this site does not compare issue ids as
// numbers (it refused a search comparing them with IDWitness, or answered
// it with issues the comparison excludes), so that a later client of the
// site (Memory) does not try again.
func (c *Client) NoteIDsNotNumeric() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.idsNotNumeric = true
}
