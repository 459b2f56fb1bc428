"""The HTTP figures: the game endpoints against a bare endpoint of the same server.

For each database (a SQLite temp file; a fresh PostgreSQL database on 127.0.0.1:5432,
dropped after, or skipped when unreachable) the production server (one worker) serves
``bench._app:create_bench_app``: the real app plus bare routes. Clients are threads in
this process, each with its own keep-alive httpx connection, each sending a fixed number
of requests.

Only ratios mean anything on a shared machine, so the phases run in several short rounds
(bare, bare async, bare + SELECT 1, make_move's signature, create_game, make_move,
list_legal_moves, get_game, then again) and each figure is set against the bare sync
route of the same run. Two costs are given:
by wall-clock throughput with four clients, and by the server process's CPU time per
request (from /proc; it leaves out PostgreSQL's own processes), which other load on the
machine disturbs much less: wall-clock ratios swing widely when other processes compete
for the cores, the CPU ratios hardly. A one-worker server's CPU time is its own count
(``/bench/cpu``, to the nanosecond); /proc counts 10 ms ticks. Each table is run with one
client (sequential: the cost of a request alone) and with four (throughput); PostgreSQL
then once more with two workers (``WORKERS=2``, the production shape on two cores) and
eight clients: moves per second per core, against the bare route of the same run.

Measured: make_move's parameters and dependencies on a route that does nothing else;
create_game; make_move with a legal-move object posted back unchanged (a play
when one is legal, else a draw), at moves 1 to ``moves_per_game`` of fresh games;
list_legal_moves and get_game on those games; and the cost of one draw at move 60
against one at move 1, in interleaved pairs from a single client.

Goals: a move costs no more than 3 bare requests by time and 4 by server CPU; move 60 no
more than 1.5 x move 1.

``python -m bench http --help`` lists the options: ``--quick`` runs fewer requests;
``--sqlite-only`` skips PostgreSQL.

``--baseline DIR`` measures another checkout against this one in the same run, since
only figures taken in the same minutes compare: DIR is a checkout of this repository (say
a git worktree of an older commit) with its own virtual environment in DIR/.venv. Every
server is then started twice, both up at once: the baseline's (DIR/.venv/bin/python,
working directory DIR, so DIR's own ``bench._app:create_bench_app``) and this checkout's
(``sys.executable``, working directory this checkout), each on a fresh database of its
own (its own SQLite file; its own scratch PostgreSQL database) migrated by its own
checkout's ``alembic upgrade head`` (a subprocess in that checkout, DATABASE_URL set).
Each phase of each round runs on one server and then at once on the other, which of the
two goes first alternating from phase to phase and from round to round, so both see the
same load on the machine (the rounds are three times as many and a third as long, so
they take turns more often); the depth pairs run on one server, then on the other. Each
server's tables are printed as without the option (its figures against its own bare
route), then one table setting them side by side: for each figure the baseline's, the
new one's, new/baseline, and that ratio round by round (median, lowest-highest).
``--current DIR`` puts another checkout in place of this one (a harness check: with the
same code on both sides the ratios show the noise).

The games of the depth figure are brought to move 59 over HTTP (untimed), by whichever
code the server runs.
"""

# The modules, by concern: figures (sizes, goals, what a phase records), servers (the
# checkouts, their servers and databases), load (the clients and the phases), report (the
# tables) and cli (the options and the run).
from bench.http.cli import run

__all__ = ["run"]
