"""Recall of planted facts under a 5,000-token context budget: the published rules, textbook BM25
and ours (facade.host.context.ContextManager), in one run.

Each conversation is a long agent session (~200 messages, ~100k o200k tokens: tool calls over
invoices, calendars, logs, mail and documents, several results over 12,000 characters) in which
the user drops facts in passing — five that are asked about at the end and ~15 distractors: other
facts about the same person, project, client or host, and the same kind of fact about someone
else. About a quarter of the fact kinds name no one ("the password for the lobby network is …").
The final user turn asks about one planted fact in DIFFERENT words: apart from the subject's name,
a question shares no content word with the sentence that answers it (same stem, or the same first
five letters); `paraphrase_gaps()` checks every template pair and the run refuses to start if one
breaks the rule. A fact counts as recalled when its sentence is in what the method would send.
Offline and deterministic: the conversations come from `random.Random(seed)`.

    python scripts/bench_recall.py [--seed 2026] [--conversations 20] [--budget 5000] [--json]
    python scripts/bench_recall.py --corpus hard --split dev|held   (scripts/recall_corpus.py)
    python scripts/bench_recall.py --cost                            (compile's cost per turn)

(a) the published rules: the last 6 messages, then older ones by a BM25-lite per-message score
    (term-frequency saturation only: no IDF, no length normalisation, no stopwords) while they fit;
(b) textbook BM25 (rank_bm25.BM25Okapi over lowercase words minus English stopwords), same
    packing;
(c) ours: ContextManager(budget_tokens=5000).compile(messages, query), and the same without the
    embedding model, to show what the model earns; a floor row (the newest messages that fit)
    shows what no ranking at all recovers.
Every method sees the same messages, the same 12,000-character truncation and the same tokenizer.
Ours was tuned on seed 7 and is reported on seed 2026; the fact templates are shared by all seeds.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # recall_corpus

from facade.host.context import ContextManager, truncate_middle
from facade.host.relevance import STOPWORDS
from facade.host.tokenizer import TokenCounter

Message = dict[str, Any]
KEEP_RECENT = 6

# --- what can be said about whom ------------------------------------------------------------------

PEOPLE = ["Clara", "Marco", "Priya", "Tomasz", "Aiko", "Farid", "Lena", "Oskar", "Nadia", "Ruben",
          "Ingrid", "Kwame", "Sofia", "Jonas", "Mei", "Diego", "Hanna", "Viktor", "Amara", "Elif"]
PROJECTS = ["Bluejay", "Kestrel", "Orchid", "Basalt", "Juniper", "Quokka", "Meridian", "Sable",
            "Tundra", "Halyard"]
CLIENTS = ["Northwind Traders", "Halvorsen & Berg", "Oakridge Dental", "Tessellate Labs",
           "Brightwater Co-op", "Pemberton Freight", "Lumen Optics", "Castell Bakery"]
HOSTS = ["ams-db-02", "web-fra-11", "nas-backup-1", "k8s-worker-7", "vpn-gw-3", "mail-relay-2",
         "ci-runner-5", "grafana-01", "ldap-core-1", "pg-staging-4"]
# Facts about the user, the office or the team name no one: the question can only paraphrase.
KINDS = {"person": PEOPLE, "project": PROJECTS, "client": CLIENTS, "host": HOSTS, "self": [""]}


@dataclass(frozen=True)
class FactKind:
    """One kind of fact: how the user states it and how they later ask for it.

    Attributes:
        key: the kind's name.
        entity: which pool the subject comes from (`person`, `project`, `client`, `host`), or
            `self` for facts about the user, the office or the team, which name no one.
        statements: templates with `{e}` (the subject) and `{v}` (the value).
        questions: templates with `{e}`; they share no content word with any statement.
        values: what `{v}` can be.
    """

    key: str
    entity: str
    statements: tuple[str, ...]
    questions: tuple[str, ...]
    values: tuple[str, ...]


FACTS = [
    FactKind("allergy", "person",
             ("{e} is allergic to {v}, so leave it out of anything we order for the offsite.",
              "Reminder: {v} gives {e} a bad reaction, keep it away from the catering."),
             ("Which food must stay off {e}'s plate?", "What can {e} not eat?"),
             ("peanuts", "shellfish", "sesame", "kiwi", "walnuts", "mustard", "celery", "dairy")),
    FactKind("birthday", "person",
             ("{e} was born on {v}, put a reminder in my calendar.",),
             ("When does {e} celebrate getting a year older?", "What's {e}'s special day each year?"),
             ("3 February", "19 May", "27 July", "8 October", "14 December", "30 March")),
    FactKind("extension", "person",
             ("You can reach {e} on desk line {v} if the mobile is off.",),
             ("What number do I dial to get {e} at the office?", "Which phone digits ring through to {e}?"),
             ("4417", "2093", "3358", "5120", "6604", "7781")),
    FactKind("home", "person",
             ("{e} lives in {v} and comes in by train on Tuesdays.",),
             ("Which town is {e}'s home?", "Where is {e} based when not at work?"),
             ("Utrecht", "Ghent", "Leeds", "Aarhus", "Porto", "Graz", "Lyon", "Tartu")),
    FactKind("title", "person",
             ("{e} just got promoted to {v}, so route approvals through them now.",),
             ("What's {e}'s job these days?", "What position does {e} hold now?"),
             ("head of procurement", "lead SRE", "finance controller", "engineering manager",
              "chief of staff", "operations director")),
    FactKind("pet", "person",
             ("{e}'s dog is called {v}; it's the one that barks on every video call.",),
             ("What's the name of {e}'s puppy?", "How is {e}'s hound named?"),
             ("Biscuit", "Pepper", "Moose", "Juno", "Waffles", "Ziggy")),
    FactKind("leave", "person",
             ("{e} is off from {v}, hiking in the Dolomites with no laptop.",),
             ("During which dates will {e} be away on holiday?", "When is {e} taking vacation?"),
             ("3 to 17 August", "12 to 26 June", "1 to 9 September", "20 to 31 July")),
    FactKind("contact", "person",
             ("Never email {e} about urgent stuff, ping them on {v} instead.",),
             ("How should I get hold of {e} quickly?", "What's the fastest way to talk to {e}?"),
             ("Signal", "Slack", "Matrix", "a text message", "WhatsApp", "a phone call")),
    FactKind("size", "person",
             ("For the team hoodies, {e} needs size {v}.",),
             ("What clothing measurement should I order for {e}?", "Which fit does {e} wear?"),
             ("XS", "S", "M", "L", "XL", "XXL")),
    FactKind("deadline", "project",
             ("The hard cutoff for {e} is {v}; the client signs off the week after.",),
             ("By when must {e} be delivered?", "What date is {e} due?"),
             ("14 March", "2 June", "30 September", "18 November", "9 January")),
    FactKind("budget", "project",
             ("{e} has {v} to spend in total, and that includes contractors.",),
             ("How much money is allotted to {e}?", "What's the funding for {e}?"),
             ("EUR 48,000", "EUR 125,000", "EUR 9,500", "EUR 310,000", "EUR 72,000")),
    FactKind("repo", "project",
             ("The code for {e} sits in {v} on our Gitea.",),
             ("Where is {e}'s source kept?", "Which repository holds {e}?"),
             ("infra/kestrel-api", "apps/ledger-ui", "tools/sync-agent", "ml/forecast", "web/portal")),
    FactKind("owner", "project",
             ("{v} is accountable for {e} end to end, escalate to them.",),
             ("Who runs {e}?", "Who is in charge of {e}?"),
             ("Ms. Okafor", "Mr. Lindqvist", "Dr. Haddad", "Ms. Brennan", "Mr. Sato")),
    FactKind("channel", "project",
             ("Status updates for {e} go to the {v} room.",),
             ("Where do we post progress on {e}?", "Which chat do we use to report on {e}?"),
             ("#delivery-war-room", "#proj-weekly", "#launch-desk", "#ship-it", "#steerco")),
    FactKind("backup", "host",
             ("{e} gets snapshotted {v} and the copies are held for 30 days.",),
             ("How often is {e} backed up?", "What's the save schedule of {e}?"),
             ("every night at 02:30", "every six hours", "hourly", "twice a week", "each Sunday at 04:00")),
    FactKind("os", "host",
             ("{e} still runs {v}, which is why the new agent won't install there.",),
             ("What operating system is on {e}?", "Which distro does {e} have?"),
             ("Debian 11", "Ubuntu 20.04", "Rocky Linux 8", "FreeBSD 13", "CentOS 7")),
    FactKind("rack", "host",
             ("{e} physically sits in rack {v} at the Amsterdam colo.",),
             ("Where is {e} mounted in the data centre?", "In which cabinet is {e}?"),
             ("R14-U22", "R03-U08", "R21-U40", "R09-U15", "R17-U31")),
    FactKind("window", "host",
             ("Only reboot {e} during {v}; outside that the warehouse scanners depend on it.",),
             ("When are we allowed to restart {e}?", "At what time may {e} go down for maintenance?"),
             ("Sunday 01:00-03:00", "weekdays 22:00-23:00", "the first Saturday of the month",
              "Wednesday lunchtime")),
    FactKind("breakglass", "host",
             ("The break-glass account on {e} is {v}, password is in the vault.",),
             ("Which user do I sign in with on {e} in an emergency?", "What login gets me into {e} if everything is on fire?"),
             ("rescue-ops", "root-alt", "svc-recovery", "ops-fallback", "standby-root")),
    FactKind("terms", "client",
             ("{e} pays on {v} terms and always on the last possible day.",),
             ("How long does {e} take to settle invoices?", "When does {e}'s money usually arrive?"),
             ("net 45", "net 30", "net 60", "net 14", "net 90")),
    FactKind("vat", "client",
             ("{e}'s VAT number is {v}, they'll reject bills without it.",),
             ("What tax identifier goes on invoices to {e}?", "Which fiscal code must I quote for {e}?"),
             ("NL812345678B01", "BE0456123789", "DE298765431", "FR40123456789", "DK31425364")),
    FactKind("liaison", "client",
             ("Our main person at {e} is {v}; the others there don't answer mail.",),
             ("Whom should I talk to over at {e}?", "Who is our go-to contact at {e}?"),
             ("Ms. Okafor", "Mr. Lindqvist", "Dr. Haddad", "Ms. Brennan", "Mr. Sato")),
    FactKind("discount", "client",
             ("We promised {e} {v} off the next order because of the late delivery.",),
             ("What price reduction did we agree with {e}?", "How much cheaper will {e}'s purchase be?"),
             ("12%", "8%", "15%", "5%", "20%")),
    FactKind("shipping", "client",
             ("Parcels for {e} must go to {v}, not the head office.",),
             ("Where should shipments to {e} be sent?", "Which address receives {e}'s deliveries?"),
             ("their Rotterdam warehouse", "Dock 4 in Antwerp", "the Eindhoven lab", "Unit 7, Harbour Road")),
    FactKind("wifi", "self",
             ("The password for the lobby network is {v}.",),
             ("What do guests type to connect their laptops to the internet?",),
             ("tulip-4821", "harbour-77", "mango-kiwi-9", "blue-heron-12")),
    FactKind("door", "self",
             ("The side entrance keypad code is {v}; the main door is locked after six.",),
             ("How do I get into the building in the evening?",),
             ("4821#", "1967*", "3090#", "7314#")),
    FactKind("parking", "self",
             ("My car is in bay {v} of the underground garage this week.",),
             ("Where did I leave the vehicle?",),
             ("B-14", "C-02", "A-31", "D-07")),
    FactKind("flight", "self",
             ("I'm flying out on {v} on Thursday morning.",),
             ("Which plane am I catching at the end of the week?",),
             ("KL1234", "LH2011", "SN3587", "BA0431")),
    FactKind("costcentre", "self",
             ("Book all conference travel against cost centre {v}.",),
             ("Which accounting code do trips to events go under?",),
             ("CC-4410", "CC-2075", "CC-8812", "CC-3301")),
    FactKind("standup", "self",
             ("Our daily standup moved to {v} because of the new hires in Toronto.",),
             ("What time is the everyday team meeting these days?",),
             ("09:45", "10:15", "16:30", "11:00")),
    FactKind("printer", "self",
             ("The printer on the third floor is {v}; the one by the kitchen is broken.",),
             ("Which device should I send documents to for paper copies?",),
             ("PRN-3F-EAST", "hp-floor3", "xerox-c60", "PRN-3F-WEST")),
    FactKind("insurance", "self",
             ("Our liability insurance policy number is {v}, renewal is in spring.",),
             ("What's the reference on the cover we hold against claims?",),
             ("LP-2291-88", "AX-55120", "HDI-774-3", "ZU-90817")),
]

# --- the session around the facts -------------------------------------------------------------------

OPENERS = ("", "Oh, before I forget: ", "Side note: ", "Also, ", "FYI, ", "Something to remember: ",
           "Unrelated, but ", "One more thing. ")
CLOSERS = ("", " Anyway, back to the list.", " Carry on.", " No action needed yet.",
           " Just so you know.", " Right, where were we?")
ACKS = ("Noted.", "Got it, I'll keep that in mind.", "Understood, thanks for telling me.",
        "Okay, noted for later.", "Thanks, I've made a note of it.")
CHAT = ("Thanks, that's helpful.", "Great, next one.", "Perfect.", "Hmm, let me think about that.",
        "Can you make that shorter?", "OK, park that for now.", "Good catch.", "Sounds right to me.",
        "Let's do that tomorrow instead.", "That's odd, but fine.")
STATUSES = ("paid", "open", "overdue", "draft", "disputed")
ROOMS = ("Aula", "Fjord", "Lighthouse", "Atrium", "Boiler Room", "Library")
LOG_LINES = ("GET /api/orders 200 {ms}ms", "POST /api/login 401 {ms}ms", "worker heartbeat ok lag={ms}ms",
             "connection pool exhausted, waiting {ms}ms", "checkpoint complete: wrote {n} buffers",
             "autovacuum: processing table public.events ({n} dead tuples)", "TLS handshake timeout from 10.0.{n}.4",
             "job sync-inventory finished in {ms}ms", "disk usage /var at {n}%", "replication lag {ms}ms")
DOC_SENTENCES = ("The {p} team will migrate the reporting jobs to the new scheduler before the freeze.",
                 "{a} raised concerns about the data retention policy for {c}.",
                 "Open question: should {p} reuse the shared Postgres cluster or get its own?",
                 "Risks include vendor lock-in, unclear ownership of alerts and slow procurement.",
                 "{a} and {b} agreed to pair on the API design review next sprint.",
                 "Milestone two covers the import pipeline, the audit log and the admin screens.",
                 "We measured a median page load of {n}00 ms on the staging portal.",
                 "The invoice export for {c} must keep the legacy CSV column order.",
                 "Load tests on {h} showed the cache hit rate dropping under sustained writes.",
                 "Action item: {a} to circulate the revised estimate to the steering group.")


class Session:
    """Builds one conversation's filler: realistic agent work with tool calls around the facts."""

    def __init__(self, rng: random.Random, cast: dict[str, list[str]]) -> None:
        self.rng = rng
        self.cast = cast
        self.calls = 0

    def pick(self, kind: str) -> str:
        return self.rng.choice(self.cast[kind])

    def tool_exchange(self, request: str, tool: str, arguments: dict[str, Any], result: str, summary: str) -> list[Message]:
        self.calls += 1
        call_id = f"call_{self.calls:04d}"
        return [
            {"role": "user", "content": request},
            {"role": "assistant", "content": "", "tool_calls": [{"id": call_id, "name": tool, "arguments": arguments}]},
            {"role": "tool", "tool_call_id": call_id, "name": tool, "content": result, "is_error": False},
            {"role": "assistant", "content": summary},
        ]

    def invoices(self) -> list[Message]:
        client, rng = self.pick("client"), self.rng
        rows = [{"id": f"INV-{rng.randint(10000, 99999)}", "client": rng.choice(self.cast["client"]),
                 "contact": rng.choice(self.cast["person"]), "amount_eur": round(rng.uniform(80, 24000), 2),
                 "due": f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}", "status": rng.choice(STATUSES),
                 "lines": [{"sku": f"SKU-{rng.randint(100, 999)}", "qty": rng.randint(1, 40)} for _ in range(rng.randint(1, 4))]}
                for _ in range(rng.randint(8, 90))]
        open_total = sum(r["amount_eur"] for r in rows if r["status"] != "paid")
        return self.tool_exchange(
            f"Can you pull the invoices for {client} and anything related from this year?",
            "finance.invoice_list", {"client": client, "year": 2026}, json.dumps({"invoices": rows}, indent=1),
            f"I found {len(rows)} invoices. EUR {open_total:,.2f} is still outstanding; the oldest open one is {rows[0]['id']}.")

    def calendar(self) -> list[Message]:
        rng = self.rng
        events = [{"title": f"{rng.choice(self.cast['project'])} {rng.choice(['sync', 'review', 'planning', 'retro', 'demo'])}",
                   "start": f"2026-11-{rng.randint(1, 30):02d}T{rng.randint(8, 17):02d}:{rng.choice(['00', '30'])}",
                   "room": rng.choice(ROOMS), "attendees": rng.sample(self.cast["person"], rng.randint(2, 5))}
                  for _ in range(rng.randint(5, 40))]
        who = self.pick("person")
        return self.tool_exchange(
            f"What does next week look like? Anything with {who}?", "calendar.event_list",
            {"from": "2026-11-16", "to": "2026-11-22"}, json.dumps({"events": events}, indent=1),
            f"You have {len(events)} events; {who} is in {sum(who in e['attendees'] for e in events)} of them.")

    def logs(self) -> list[Message]:
        host, rng = self.pick("host"), self.rng
        lines = [f"2026-11-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z {host} "
                 + rng.choice(LOG_LINES).format(ms=rng.randint(1, 4000), n=rng.randint(1, 99)) for _ in range(rng.randint(20, 400))]
        return self.tool_exchange(
            f"{host} feels sluggish again. Check the recent logs?", "hosts.logs_tail", {"host": host, "lines": len(lines)},
            "\n".join(lines), f"Mostly noise; the pool on {host} ran out a few times and replication lag spiked once.")

    def mail(self) -> list[Message]:
        rng = self.rng
        mails = [{"from": rng.choice(self.cast["person"]), "subject": f"Re: {rng.choice(self.cast['project'])} {rng.choice(['estimate', 'timeline', 'invoice', 'access'])}",
                  "body": " ".join(self.doc_sentence() for _ in range(rng.randint(1, 4)))} for _ in range(rng.randint(3, 15))]
        return self.tool_exchange("Summarise my unread mail, please.", "mail.search", {"unread": True},
                                  json.dumps({"messages": mails}, indent=1),
                                  f"{len(mails)} unread. Most are about {mails[0]['subject'][4:]}; nothing urgent.")

    def document(self) -> list[Message]:
        project, rng = self.pick("project"), self.rng
        text = f"# {project}: design notes\n\n" + "\n\n".join(
            " ".join(self.doc_sentence() for _ in range(rng.randint(3, 7))) for _ in range(rng.randint(4, 40)))
        return self.tool_exchange(f"Open the {project} design notes and tell me what's still open.", "files.read",
                                  {"path": f"projects/{project.lower()}/design.md"}, text,
                                  f"Three open questions in the {project} notes: hosting, data retention and ownership of alerts.")

    def doc_sentence(self) -> str:
        a, b = self.rng.sample(self.cast["person"], 2)
        return self.rng.choice(DOC_SENTENCES).format(a=a, b=b, p=self.pick("project"), c=self.pick("client"),
                                                     h=self.pick("host"), n=self.rng.randint(1, 9))

    def chat(self) -> list[Message]:
        rng = self.rng
        ask = rng.choice((f"Move the {self.pick('project')} review to Thursday, {self.pick('person')} can't do Wednesday.",
                          f"Draft a short reply to {self.pick('client')} saying we'll have the numbers on Friday.",
                          f"Remind me what we decided about the {self.pick('host')} upgrade.",
                          f"Is {self.pick('person')} on the {self.pick('project')} kickoff invite?",
                          "Write a Python one-liner to count lines in all .csv files under exports/.",
                          f"Give me three bullet points for the {self.pick('project')} status report."))
        answer = rng.choice(("Done. " + rng.choice(CHAT), "Here you go:\n\n- scope is unchanged\n- two risks, both owned\n- next review in two weeks",
                             "`find exports -name '*.csv' | xargs wc -l`", "We agreed to wait until after the quarter close.",
                             "Draft:\n\nHello, thank you for your patience. We will send the figures on Friday. Kind regards"))
        return [{"role": "user", "content": ask}, {"role": "assistant", "content": answer}]

    def episode(self) -> list[Message]:
        make = self.rng.choices((self.invoices, self.calendar, self.logs, self.mail, self.document, self.chat),
                                weights=(2, 2, 2, 2, 2, 5))[0]
        return make()


# --- conversations with planted facts -----------------------------------------------------------------

LEAD_INS = ("", "Quick question: ", "Hey, ", "Before we stop: ")


@dataclass(frozen=True)
class Probe:
    """One planted fact that the final user turn asks about.

    Attributes:
        fact: the sentence as planted; recalled when a method's output contains it.
        question: the final user turn, a paraphrase of the fact.
        kind: the fact's kind (`FactKind.key`).
    """

    fact: str
    question: str
    kind: str


@dataclass(frozen=True)
class Conversation:
    """A long session and the probes asked at its end (each one separately, as the last turn).

    Attributes:
        history: every message before the question, oldest first.
        probes: the asked facts; the other planted facts are distractors.
    """

    history: list[Message]
    probes: list[Probe]


def build_conversation(rng: random.Random, *, asked: int = 5, episodes: int = 50) -> Conversation:
    cast = {"person": rng.sample(PEOPLE, 8), "project": rng.sample(PROJECTS, 4),
            "client": rng.sample(CLIENTS, 4), "host": rng.sample(HOSTS, 5), "self": [""]}
    by_entity = {kind: [f for f in FACTS if f.entity == kind] for kind in KINDS}
    targets: list[tuple[FactKind, str]] = []
    for kind in rng.sample(FACTS, asked):
        targets.append((kind, rng.choice(cast[kind.entity])))
    planted: dict[tuple[str, str], str] = {}
    probes: list[Probe] = []
    for kind, entity in targets:
        fact = rng.choice(kind.statements).format(e=entity, v=rng.choice(kind.values))
        planted[(kind.key, entity)] = fact
        probes.append(Probe(fact, rng.choice(LEAD_INS) + rng.choice(kind.questions).format(e=entity), kind.key))
    # Distractors: two other facts about the same subject, and the same kind about someone else.
    distractors: list[tuple[FactKind, str]] = []
    for kind, entity in targets:
        distractors += [(other, entity) for other in rng.sample([k for k in by_entity[kind.entity] if k is not kind], 2)]
        others = [e for e in cast[kind.entity] if e != entity]
        distractors += [(kind, other) for other in rng.sample(others, min(len(others), rng.randint(1, 2)))]
    for kind, entity in distractors:
        if (kind.key, entity) not in planted:
            planted[(kind.key, entity)] = rng.choice(kind.statements).format(e=entity, v=rng.choice(kind.values))
    session = Session(rng, cast)
    blocks = [session.episode() for _ in range(episodes)]
    # Facts land anywhere in the first 85% of the session, as a turn of their own.
    for fact in planted.values():
        said = rng.choice(OPENERS) + fact + rng.choice(CLOSERS)
        blocks.insert(rng.randint(0, int(len(blocks) * 0.85)), [{"role": "user", "content": said},
                                                               {"role": "assistant", "content": rng.choice(ACKS)}])
    blocks += [session.chat() for _ in range(3)]
    return Conversation([m for block in blocks for m in block], probes)


def generate(seed: int, conversations: int) -> list[Conversation]:
    rng = random.Random(seed)
    return [build_conversation(rng) for _ in range(conversations)]


def paraphrase_gaps() -> list[str]:
    """Every statement/question pair that shares a content word (same stem, or the same first five
    letters) once the subject is set aside; the benchmark is only honest when this is empty."""
    from recall_corpus import shared_words

    return shared_words(FACTS)


# --- the methods ---------------------------------------------------------------------------------------


def pack(messages: list[Message], scores: Sequence[float], budget: int, counter: TokenCounter) -> list[Message]:
    """The published packing: the last 6 messages, then older ones best score first (most recent on a
    tie) while they fit."""
    recent, older = messages[-KEEP_RECENT:], messages[:-KEEP_RECENT]
    used = sum(counter.message(m) for m in recent)
    chosen: set[int] = set()
    for i in sorted(range(len(older)), key=lambda i: (-scores[i], -i)):
        cost = counter.message(older[i])
        if used + cost <= budget:
            chosen.add(i)
            used += cost
    return [older[i] for i in sorted(chosen)] + recent


def plain_words(text: str) -> list[str]:
    return [w.lower() for w in re.findall(r"\w+", text)]


def published_rules(messages: list[Message], query: str, budget: int, counter: TokenCounter) -> list[Message]:
    """(a) BM25-lite: per message, the sum over query words of tf·(k1+1)/(tf+k1), k1=1.2 — BM25's
    saturation without IDF, length normalisation or stopwords."""
    q = plain_words(query)
    scores = []
    for m in messages[:-KEEP_RECENT]:
        tf: dict[str, int] = {}
        for w in plain_words(m["content"]):
            tf[w] = tf.get(w, 0) + 1
        scores.append(sum(tf.get(w, 0) * 2.2 / (tf.get(w, 0) + 1.2) for w in q))
    return pack(messages, scores, budget, counter)


def textbook_bm25(messages: list[Message], query: str, budget: int, counter: TokenCounter) -> list[Message]:
    """(b) rank_bm25's BM25Okapi (k1=1.5, b=0.75) over the older messages, lowercase words minus
    English stopwords."""
    from rank_bm25 import BM25Okapi

    def terms(text: str) -> list[str]:
        return [w for w in plain_words(text) if w not in STOPWORDS] or ["∅"]

    older = messages[:-KEEP_RECENT]
    scores = BM25Okapi([terms(m["content"]) for m in older]).get_scores(terms(query)) if older else []
    return pack(messages, list(scores), budget, counter)


def load_corpus(corpus: str, split: str, seed: int | None, count: int) -> tuple[list[Any], set[str], str]:
    """The conversations, the kinds of fact that name no one, and what they are; refuses to start
    when a question shares a word with its fact."""
    if corpus == "hard":
        import recall_corpus

        gaps = recall_corpus.gaps(split)
        conversations = recall_corpus.generate(split, count, seed)
        about = f"hard corpus, {split} split, seed {recall_corpus.SEEDS[split] if seed is None else seed}"
        unnamed = recall_corpus.unnamed(split)
    else:
        gaps = paraphrase_gaps()
        conversations = generate(2026 if seed is None else seed, count)
        about = f"default corpus, seed {2026 if seed is None else seed}"
        unnamed = {k.key for k in FACTS if k.entity == "self"}
    if gaps:
        raise SystemExit("questions must paraphrase their facts; these pairs share words:\n" + "\n".join(gaps))
    return conversations, unnamed, about


def run(conversations: list[Any], self_kinds: set[str], budget: int, embeddings: Path | None = None) -> dict[str, Any]:
    counter = TokenCounter()
    count = len(conversations)
    ours = ContextManager(budget_tokens=budget, embeddings=embeddings)
    load = time.perf_counter()
    ours.scorer  # noqa: B018 — loads the embedding model, timed on its own
    load = time.perf_counter() - load
    methods: dict[str, Callable[[list[Message], str], list[Message]]] = {
        "recency": lambda msgs, q: pack([truncate_middle(m) for m in msgs], [0.0] * len(msgs), budget, counter),
        "published": lambda msgs, q: published_rules([truncate_middle(m) for m in msgs], q, budget, counter),
        "bm25": lambda msgs, q: textbook_bm25([truncate_middle(m) for m in msgs], q, budget, counter),
        "ours": ours.compile,
        "ours_lexical": ContextManager(budget_tokens=budget, semantic=False).compile,
    }
    recalled = {name: 0 for name in methods}
    unnamed = {name: 0 for name in methods}  # recalled facts that name no one (kind `self`)
    seconds = {name: 0.0 for name in methods}
    over_budget = {name: 0 for name in methods}
    for conv in conversations:
        for probe in conv.probes:
            messages = conv.history + [{"role": "user", "content": probe.question}]
            for name, method in methods.items():
                start = time.perf_counter()
                sent = method(messages, probe.question)
                seconds[name] += time.perf_counter() - start
                found = any(probe.fact in m["content"] for m in sent)
                recalled[name] += found
                unnamed[name] += found and probe.kind in self_kinds
                over_budget[name] += sum(counter.message(m) for m in sent) > budget
    probes = sum(len(c.probes) for c in conversations)
    embedder = getattr(ours.scorer, "embedder", None)
    embedded = getattr(embedder, "embedded", None) if embeddings else len(getattr(embedder, "cache", ()))
    unnamed_probes = sum(p.kind in self_kinds for c in conversations for p in c.probes)
    sizes = [sum(counter.message(m) for m in c.history) for c in conversations]
    return {"date": dt.date.today().isoformat(), "conversations": count, "probes": probes,
            "budget_tokens": budget, "messages_per_conversation": sum(len(c.history) for c in conversations) / count,
            "tokens_per_conversation": sum(sizes) / count, "recalled": recalled,
            "unnamed_probes": unnamed_probes, "recalled_unnamed": unnamed,
            "ms_per_query": {k: round(1000 * v / probes, 1) for k, v in seconds.items()}, "over_budget": over_budget,
            "tokenizer": counter.name, "ours_scorer": ours.scorer.name, "ours_load_seconds": round(load, 2),
            # What ours spends beyond its BM25-only self, per text it embedded (each once: cached).
            "embedding_ms_per_text": round(1000 * (seconds["ours"] - seconds["ours_lexical"]) / embedded, 1) if embedded else None}


def cost(turns: int = 10) -> dict[str, Any]:
    """What `compile` costs per turn on one 360-message session of the hard corpus (dev): the
    first call (the model loaded, every older message embedded), the steady state (one turn more
    each time), and a resume — a fresh model and session as a new process would have them, with
    the vectors kept beside the session and without."""
    import statistics
    import tempfile

    import recall_corpus

    from facade.host.session import Session
    from facade.retrieval import embedding

    conv = recall_corpus.generate("dev", 1)[0]
    question = conv.probes[0].question

    def fresh(embeddings: Path | None) -> tuple[ContextManager, float]:
        embedding._shared = None  # a new process loads the model again
        manager = ContextManager(budget_tokens=5000, embeddings=embeddings)
        start = time.perf_counter()
        manager.scorer  # noqa: B018 — the model's load, timed apart
        return manager, time.perf_counter() - start

    def timed(manager: ContextManager, messages: list[Message], query: str) -> float:
        start = time.perf_counter()
        manager.compile(messages, query)
        return time.perf_counter() - start

    with tempfile.TemporaryDirectory() as folder:
        session = Session.open(Path(folder), "bench", "cost")
        for message in conv.history:
            session.add(message)
        session.start_turn(question)
        manager, load = fresh(session.embeddings_path)
        first = timed(manager, session.messages, question)
        steady = []
        for n in range(turns):
            session.add({"role": "assistant", "content": f"Here is what I found about item {n}."})
            ask = f"and what about item {n + 1}? {conv.probes[(n + 1) % len(conv.probes)].question}"
            session.start_turn(ask)
            steady.append(timed(manager, session.messages, ask))
        # Resumed in a new process: the session read back, a fresh model, the vectors from the file.
        start = time.perf_counter()
        resumed = Session.load(session.path)
        manager, _ = fresh(resumed.embeddings_path)
        resumed.start_turn("one more question: " + question)
        timed(manager, resumed.messages, "one more question: " + question)
        resume = time.perf_counter() - start
        embedded_on_resume = manager.scorer.embedder.embedded  # type: ignore[attr-defined]
        # The same resume with no file: everything embedded again.
        start = time.perf_counter()
        manager, _ = fresh(None)
        timed(manager, resumed.messages, "one more question: " + question)
        resume_bare = time.perf_counter() - start
    return {"date": dt.date.today().isoformat(), "messages": len(conv.history) + 1, "model_load_s": round(load, 2),
            "first_call_s": round(first, 2), "steady_ms_median": round(1000 * statistics.median(steady), 1),
            "steady_ms_max": round(1000 * max(steady), 1), "resume_s": round(resume, 2),
            "resume_embedded_texts": embedded_on_resume, "resume_without_file_s": round(resume_bare, 2),
            "command": "python scripts/bench_recall.py --cost"}


LABELS = {"recency": "    floor: newest messages that fit, unranked",
          "published": "(a) published rules: last 6 + BM25-lite",
          "bm25": "(b) textbook BM25 (rank_bm25 BM25Okapi)",
          "ours": "(c) ours: facade.host.context.ContextManager",
          "ours_lexical": "    ours, BM25 only (no embedding model)"}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", choices=("default", "hard"), default="default",
                        help="default: the generator below; hard: scripts/recall_corpus.py")
    parser.add_argument("--split", choices=("dev", "held"), default="dev", help="the hard corpus's split (tune on dev)")
    parser.add_argument("--seed", type=int, default=None, help="default corpus: 2026; hard: the split's own seed")
    parser.add_argument("--conversations", type=int, default=None, help="default corpus: 20 of 5 questions; hard: 10 of 10")
    parser.add_argument("--budget", type=int, default=5000)
    parser.add_argument("--embedding-cache", type=Path, default=None,
                        help="keep ours' embedding vectors in this file (a rerun embeds nothing twice)")
    parser.add_argument("--cost", action="store_true", help="time compile on one 360-message session: first call, steady state, resume")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.cost:
        figures = cost()
        if args.json:
            print(json.dumps(figures, indent=2))
        else:
            print(f"compile on a {figures['messages']}-message session ({figures['date']}), 5,000-token budget:\n"
                  f"  model load {figures['model_load_s']} s; first call {figures['first_call_s']} s (every older message embedded)\n"
                  f"  steady state: median {figures['steady_ms_median']} ms per turn (max {figures['steady_ms_max']} ms)\n"
                  f"  resume (session read, model loaded, first compile): {figures['resume_s']} s with the vectors beside the session "
                  f"({figures['resume_embedded_texts']} texts embedded), {figures['resume_without_file_s']} s without\n\n{figures['command']}")
        return
    if args.conversations is None:
        args.conversations = 10 if args.corpus == "hard" else 20  # 100 questions either way
    conversations, unnamed_kinds, about = load_corpus(args.corpus, args.split, args.seed, args.conversations)
    result = run(conversations, unnamed_kinds, args.budget, args.embedding_cache)
    result["corpus"] = about
    flags = f"--corpus {args.corpus}" + (f" --split {args.split}" if args.corpus == "hard" else "")
    flags += f" --seed {args.seed}" if args.seed is not None else ""
    result["command"] = f"python scripts/bench_recall.py {flags} --conversations {args.conversations} --budget {args.budget}"
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"Recall of {result['probes']} planted facts asked in paraphrase, at a {args.budget:,}-token budget "
          f"({result['date']}; {about}; {args.conversations} conversations of ~{result['messages_per_conversation']:.0f} messages, "
          f"~{result['tokens_per_conversation']:,.0f} {result['tokenizer']} tokens each)\n")
    named, unnamed = result["probes"] - result["unnamed_probes"], result["unnamed_probes"]
    print(f"| {'method':<46} | recalled | naming someone | naming no one | ms/query |")
    print(f"|{'-' * 48}|---------:|---------------:|--------------:|---------:|")
    for name, label in LABELS.items():
        got, got_unnamed = result["recalled"][name], result["recalled_unnamed"][name]
        print(f"| {label:<46} | {got:>3}/{result['probes']:<4} | {got - got_unnamed:>9}/{named:<4} | "
              f"{got_unnamed:>8}/{unnamed:<4} | {result['ms_per_query'][name]:>8} |")
    embedded = (f"~{result['embedding_ms_per_text']} ms per message embedded (once; its ms/query includes each history's)"
                if result["embedding_ms_per_text"] else "vectors read from --embedding-cache (ms/query without embedding)")
    print(f"\nours ranked with {result['ours_scorer']}: model load {result['ours_load_seconds']} s, then {embedded}. "
          f"Over budget: {sum(result['over_budget'].values())} of {result['probes'] * len(LABELS)} compiled contexts.")
    print(f"\n{result['command']}")


if __name__ == "__main__":
    main()
