"""The hard recall corpus: long agent sessions written the way people talk, with planted facts that
are hard to find again.

What makes it hard, and what the default corpus of scripts/bench_recall.py lacks:
- the subject of every asked fact is named in many other messages: other facts about it, the same
  kind of fact about others, small talk that names it in passing, a near miss on the same topic
  ("Clara wants the veggie box on Friday" beside "Clara ended up in A&E: peanuts again"), and the
  tool outputs (invoices, calendars, mail) that name the cast everywhere;
- facts are stated indirectly and casually (lowercase, "pls", "lol"), and the question paraphrases
  the attribute: apart from the subject, a question shares no content word with its fact (same
  stem, or the same first five letters; `gaps()` checks every pair and the run refuses to start
  if one breaks the rule);
- ~360 messages a session, long tool outputs in between, and the turn in progress (the last
  messages, which every method keeps) holds a tool exchange of its own.

Two splits, each with its own seed AND its own templates: names, fact phrasings, questions, near
misses and small talk. Tune on `dev`; `held` is read once, at the end, to report.

    python scripts/bench_recall.py --corpus hard --split dev|held
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

from facade.host.relevance import STOPWORDS, stem, words

Message = dict[str, Any]
SEEDS = {"dev": 4101, "held": 9377}


@dataclass(frozen=True)
class Probe:
    """One planted fact that the final user turn asks about.

    Attributes:
        fact: the fact's words as planted; recalled when a method's output contains them.
        question: the final user turn, a paraphrase of the attribute.
        kind: the fact's kind.
    """

    fact: str
    question: str
    kind: str


@dataclass(frozen=True)
class Conversation:
    """A long session and the probes asked at its end (each one separately, as the last turn)."""

    history: list[Message]
    probes: list[Probe]


@dataclass(frozen=True)
class Kind:
    """One kind of fact in one split: `{e}` is the subject, `{v}` the value."""

    key: str
    entity: str  # person | project | client | host | self (names no one)
    statements: tuple[str, ...]
    questions: tuple[str, ...]
    values: tuple[str, ...]
    near: tuple[str, ...]  # same subject, same topic, no answer in it


def K(key: str, entity: str, statements: tuple[str, ...], questions: tuple[str, ...], values: tuple[str, ...], near: tuple[str, ...]) -> Kind:
    return Kind(key, entity, statements, questions, values, near)


# --- dev: its own names and phrasings ---------------------------------------------------------------

DEV_CAST = {
    "person": ["Clara", "Marco", "Priya", "Tomasz", "Aiko", "Farid", "Lena", "Oskar", "Nadia", "Ruben"],
    "project": ["Bluejay", "Kestrel", "Orchid", "Basalt", "Juniper", "Quokka"],
    "client": ["Northwind Traders", "Halvorsen & Berg", "Oakridge Dental", "Tessellate Labs", "Lumen Optics"],
    "host": ["ams-db-02", "web-fra-11", "nas-backup-1", "k8s-worker-7", "vpn-gw-3", "ci-runner-5"],
}
DEV_KINDS = [
    K("allergy", "person",
      ("{e} ended up in A&E after the team lunch, {v} again. none of that at the offsite pls",
       "heads up, {e} can't go anywhere near {v}, carries an epipen because of it"),
      ("is there any food I should avoid ordering for {e}?", "what does {e} react badly to when eating?"),
      ("peanuts", "shellfish", "sesame", "kiwi", "walnuts", "mustard"),
      ("{e} wants the veggie box for friday's lunch btw", "{e} said the canteen soup was awful today lol")),
    K("birthday", "person",
      ("{e} turns 40 on {v}!! don't let me forget to get a card", "cake for {e} on {v} pls, it's the big one this year"),
      ("when is {e}'s birthday?", "which day do we celebrate {e} growing older?"),
      ("3 February", "19 May", "27 July", "8 October", "14 December", "30 March"),
      ("{e}'s kid has a party saturday so they're leaving early friday",)),
    K("phone", "person",
      ("if {e}'s mobile is dead try the desk phone, {v}", "{e} sits at desk {v} now, the one by the window, ring that"),
      ("what extension do I dial to reach {e}?", "which number reaches {e} in the office?"),
      ("4417", "2093", "3358", "5120", "6604", "7781"),
      ("{e} changed mobile provider, might be flaky today",)),
    K("home", "person",
      ("{e} commutes in from {v}, 90 min each way poor thing", "{e} finally sold the flat and moved back to {v}"),
      ("where does {e} live?", "which city is {e}'s home these days?"),
      ("Utrecht", "Ghent", "Leeds", "Aarhus", "Porto", "Graz"),
      ("{e} is visiting family up north next month",)),
    K("title", "person",
      ("{e} got the {v} job, so approvals go via them from monday", "{e} is {v} as of this week, finally official"),
      ("what's {e}'s role now?", "what position does {e} hold?"),
      ("head of procurement", "lead SRE", "finance controller", "engineering manager", "chief of staff"),
      ("{e} is interviewing candidates for the analyst opening",)),
    K("pet", "person",
      ("{e}'s dog {v} chewed through a laptop charger again lol", "{e} brought {v} in today, the spaniel, everyone lost it"),
      ("what's the name of {e}'s pet?", "what is {e}'s puppy called?"),
      ("Biscuit", "Pepper", "Moose", "Juno", "Waffles", "Ziggy"),
      ("{e} is looking for a cat sitter over christmas",)),
    K("leave", "person",
      ("{e} is gone {v}, hiking somewhere with no signal", "don't book {e} for anything {v}, they're in Japan"),
      ("when is {e} on holiday?", "which dates will {e} be away?"),
      ("3 to 17 August", "12 to 26 June", "1 to 9 September", "20 to 31 July"),
      ("{e} worked saturday to finish the migration",)),
    K("contact", "person",
      ("{e} never reads email, if it's urgent use {v}", "honestly {v} is the only thing {e} looks at, mail goes to die"),
      ("what's the quickest way to get hold of {e}?", "how do I reach {e} fast?"),
      ("Signal", "Slack", "Matrix", "a text message", "WhatsApp"),
      ("{e} set up a new email signature, looks nice",)),
    K("deadline", "project",
      ("{e} has to ship by {v} or we lose the client", "{v} is the hard stop for {e}, legal won't move it"),
      ("when is {e} due?", "what's the final date for {e}?"),
      ("14 March", "2 June", "30 September", "18 November", "9 January"),
      ("{e} standup moved to 10 because of the new people",)),
    K("budget", "project",
      ("finance signed off {v} for {e}, contractors included", "{e} gets {v} total, that's it, no top ups"),
      ("how much money does {e} have?", "what's the budget for {e}?"),
      ("EUR 48,000", "EUR 125,000", "EUR 9,500", "EUR 310,000", "EUR 72,000"),
      ("the {e} invoice from the contractor came in",)),
    K("repo", "project",
      ("the {e} code lives in {v} on gitea", "{e} is in {v}, the old github one is dead"),
      ("which repository is {e} in?", "where's the source for {e}?"),
      ("infra/kestrel-api", "apps/ledger-ui", "tools/sync-agent", "ml/forecast", "web/portal"),
      ("{e} CI is red again, someone broke the lint step",)),
    K("owner", "project",
      ("{v} is the one to blame if {e} slips, it's theirs end to end", "{e} belongs to {v} now, escalate there"),
      ("who owns {e}?", "who's responsible for {e}?"),
      ("Ms. Okafor", "Mr. Lindqvist", "Dr. Haddad", "Ms. Brennan", "Mr. Sato"),
      ("{e} had its retro yesterday, mostly complaints about tooling",)),
    K("terms", "client",
      ("{e} always transfers at day {v}, never a day earlier", "{e} settles at {v} days like clockwork, plan cash around it"),
      ("what are {e}'s payment terms?", "how long does {e} take to clear an invoice?"),
      ("45", "30", "60", "14", "90"),
      ("{e} sent a new PO this morning",)),
    K("vat", "client",
      ("put {v} on anything we bill {e} or they bounce it", "{e} rejected our bill again, it needs {v} on it"),
      ("what's {e}'s VAT number?", "which tax id goes on {e}'s invoices?"),
      ("NL812345678B01", "BE0456123789", "DE298765431", "FR40123456789"),
      ("{e} moved offices to the other side of town",)),
    K("liaison", "client",
      ("{v} is the only person at {e} who actually answers", "ask for {v} when you phone {e}, nobody else there knows anything"),
      ("who's our contact at {e}?", "whom should I talk to at {e}?"),
      ("Ms. Okafor", "Mr. Lindqvist", "Dr. Haddad", "Ms. Brennan", "Mr. Sato"),
      ("{e} has a new receptionist, very friendly",)),
    K("discount", "client",
      ("we're knocking {v} off {e}'s next order to make up for the delay", "told {e} they get {v} off next time, sorry about the mixup"),
      ("what discount did we give {e}?", "how much cheaper will {e}'s upcoming purchase be?"),
      ("12%", "8%", "15%", "5%", "20%"),
      ("{e} complained about the late delivery again",)),
    K("backup", "host",
      ("{e} gets snapshotted {v}, copies kept 30 days", "the snapshot job on {e} runs {v}, don't be surprised by the io"),
      ("how often is {e} backed up?", "what's the backup schedule for {e}?"),
      ("every night at 02:30", "every six hours", "hourly", "twice a week", "each Sunday at 04:00"),
      ("{e} disk is at 91% again",)),
    K("os", "host",
      ("{e} is still on {v}, that's why the agent won't install", "nobody upgraded {e}, it's {v}, don't ask"),
      ("what operating system does {e} run?", "which distro is on {e}?"),
      ("Debian 11", "Ubuntu 20.04", "Rocky Linux 8", "FreeBSD 13", "CentOS 7"),
      ("{e} needs a new certificate before friday",)),
    K("rack", "host",
      ("{e} physically sits in {v} at the colo", "if you go to the colo, {e} is in {v}, top shelf"),
      ("where is {e} in the data centre?", "which cabinet holds {e}?"),
      ("R14-U22", "R03-U08", "R21-U40", "R09-U15", "R17-U31"),
      ("{e} is pinging slowly over the vpn",)),
    K("window", "host",
      ("only bounce {e} during {v}, the scanners depend on it otherwise", "{e} can go down {v}, never outside that, warehouse rule"),
      ("when can I reboot {e}?", "what's {e}'s maintenance slot?"),
      ("Sunday 01:00-03:00", "weekdays 22:00-23:00", "the first Saturday of the month", "Wednesday lunchtime"),
      ("{e} alert fired at 3am again",)),
    K("wifi", "self",
      ("guest network password is {v} fyi", "if anyone from outside asks, the lobby network key is {v}"),
      ("what's the wifi code for visitors?",),
      ("tulip-4821", "harbour-77", "mango-kiwi-9", "blue-heron-12"),
      ("the office internet was down for an hour this morning",)),
    K("door", "self",
      ("after 6pm only the side keypad works, code {v}", "they lock the main doors at six now, side entrance takes {v}"),
      ("how do I get into the building in the evening?",),
      ("4821#", "1967*", "3090#", "7314#"),
      ("the lift on the left is out of order",)),
    K("parking", "self",
      ("car's in bay {v} downstairs this week", "left the car in {v} underground, remind me friday"),
      ("where did I park?",),
      ("B-14", "C-02", "A-31", "D-07"),
      ("the garage is closing for a repaint in january",)),
    K("flight", "self",
      ("I'm on {v} thursday morning, out of schiphol", "booked {v} for thursday, 7:05 departure ugh"),
      ("which plane am I catching this week?",),
      ("KL1234", "LH2011", "SN3587", "BA0431"),
      ("hotel in berlin is booked",)),
]
DEV_CHATTER = ("cc {e} on that pls", "did {e} reply about the deck?", "{e} says hi btw", "any news on {e}?",
               "add {e} to the weekly report", "{e} came up in the call again", "remind me to ping {e} tomorrow",
               "can you find the thread about {e} from last week?", "{e} looked fine in the dashboard this morning",
               "ok so {e} is sorted for now", "what did we say about {e} yesterday?", "put {e} on the agenda for monday")
# Replies that name the subject back, and asides that pad a fact's message (checked against every
# question of the split: an aside must not lend a fact a question's word).
DEV_REPLIES = ("Okay, I'll note that for {e}.", "Sure, {e} is on my list for tomorrow.", "Will do, I'll keep {e} in the loop.",
               "Got it. Anything else about {e}?", "Done, {e} is added.", "Right, I'll follow up on {e} after lunch.")
DEV_ASIDES = ("anyway the sprint demo went ok", "also the Q3 forecast still looks off to me", "and yes I sent the deck",
              "oh and the coffee machine is fixed", "we should close the ticket backlog soon", "still waiting on legal btw")
DEV_TALK = {
    "openers": ("", "oh btw ", "side note, ", "also ", "fyi ", "random but ", "before I forget, ", "ok so "),
    "closers": ("", " anyway", " back to the list", " no action needed", " just so you know", " lol", " carry on"),
    "acks": ("Noted.", "Got it, I'll keep that in mind.", "Thanks, noted.", "Okay, I'll remember that.", "Noted for later."),
}

# --- held: other names, other phrasings, other small talk -------------------------------------------

HELD_CAST = {
    "person": ["Ingrid", "Kwame", "Sofia", "Jonas", "Mei", "Diego", "Hanna", "Viktor", "Amara", "Elif"],
    "project": ["Meridian", "Sable", "Tundra", "Halyard", "Pinecone", "Lantern"],
    "client": ["Brightwater Co-op", "Pemberton Freight", "Castell Bakery", "Greyfield Clinics", "Ardent Marine"],
    "host": ["mail-relay-2", "grafana-01", "ldap-core-1", "pg-staging-4", "edge-lon-3", "backup-ams-9"],
}
HELD_KINDS = [
    K("allergy", "person",
      ("note for catering: one bite of {v} and {e} swells up, seriously", "{e} asked me to tell the caterers no {v}, medical reasons"),
      ("what's {e} allergic to?", "which ingredient is off limits for {e}?"),
      ("cashews", "prawns", "celery", "lupin", "soy", "hazelnuts"),
      ("{e} says the new sushi place near the office is great",)),
    K("birthday", "person",
      ("we're doing drinks for {e} on {v}, another year older", "{e} was born {v} 1988 apparently, who knew"),
      ("what's {e}'s date of birth?", "when do we get a cake for {e}?"),
      ("4 April", "22 June", "11 September", "2 November", "17 January", "25 August"),
      ("it's {e}'s work anniversary soon, five years",)),
    K("phone", "person",
      ("{e}'s landline is {v}, mobile reception is awful in that building", "just call {v} if {e} doesn't pick up the cell"),
      ("what's the direct line for {e}?", "how do I ring {e} at their desk?"),
      ("3381", "5092", "6120", "2207", "8843", "1456"),
      ("{e}'s headset is broken so calls will sound rough",)),
    K("home", "person",
      ("{e} just bought a flat in {v}, so the train thing is permanent now", "{e} is from {v}, goes back every weekend"),
      ("what town does {e} live in?", "where is {e}'s place?"),
      ("Bruges", "Malmo", "Bristol", "Tampere", "Bilbao", "Linz"),
      ("{e} complained about the train strike again",)),
    K("title", "person",
      ("congrats are in order, {e} is our new {v}", "from monday {e} takes over as {v}, tell the team"),
      ("what is {e}'s job title?", "what does {e} do here now?"),
      ("product lead", "security officer", "head of sales", "data architect", "office manager"),
      ("{e} is on the hiring panel on friday",)),
    K("pet", "person",
      ("{e}'s puppy {v} walked across the keyboard mid demo", "{e} adopted a greyhound, {v}, sweetest thing"),
      ("what's {e}'s dog's name?", "what is {e}'s animal called?"),
      ("Noodle", "Mochi", "Bramble", "Otis", "Pickle", "Luna"),
      ("{e} sent photos from the vet, all fine",)),
    K("leave", "person",
      ("{e} won't be around {v}, wedding in Portugal", "{e} is out {v}, parental leave"),
      ("when is {e} taking time off?", "what are {e}'s vacation dates?"),
      ("5 to 19 May", "10 to 24 October", "2 to 13 December", "14 to 28 February"),
      ("{e} took a half day for the dentist",)),
    K("contact", "person",
      ("{e} basically lives on {v}, mail sits unread for weeks", "if it's on fire, {v} {e}, don't bother with email"),
      ("what's the best way to message {e} in a hurry?", "how can I get an urgent answer from {e}?"),
      ("Teams", "Discord", "iMessage", "Telegram", "a call"),
      ("{e} muted the general channel lol",)),
    K("deadline", "project",
      ("the client wants {e} live no later than {v}", "{e} freezes on {v}, anything after that misses the release"),
      ("what's the deadline on {e}?", "by when does {e} need to be finished?"),
      ("21 April", "6 July", "15 October", "1 December", "28 February"),
      ("{e} demo went ok, minor bugs",)),
    K("budget", "project",
      ("we can spend {v} on {e} in total, not a cent more", "the board approved {v} for {e}"),
      ("how much is allocated to {e}?", "what's {e}'s funding?"),
      ("GBP 60,000", "GBP 14,000", "GBP 220,000", "GBP 95,000", "GBP 38,500"),
      ("{e} needs two more licences",)),
    K("repo", "project",
      ("clone {v} if you want to hack on {e}", "{e} moved to {v} last sprint"),
      ("where is {e}'s git repo?", "which codebase holds {e}?"),
      ("core/billing-svc", "apps/field-app", "data/etl-jobs", "web/storefront", "ops/terraform"),
      ("{e} PR review is still pending",)),
    K("owner", "project",
      ("anything about {e} goes to {v}, they run it", "{v} took {e} over from the old team"),
      ("who is in charge of {e}?", "who leads {e}?"),
      ("Mrs. Achebe", "Mr. Kowalski", "Dr. Nakamura", "Ms. Ferreira", "Mr. Dubois"),
      ("{e} kickoff slides are in the drive",)),
    K("terms", "client",
      ("{e} is on {v} and they milk every day of it", "contract says {v} for {e}, never a day sooner"),
      ("how quickly does {e} pay us?", "when can we expect money from {e}?"),
      ("net 60", "net 21", "net 45", "net 75", "net 10"),
      ("{e} asked for a copy of the contract",)),
    K("vat", "client",
      ("accounts at {e} keep asking us to quote {v} on everything", "{e}'s registration is {v}, goes on every bill"),
      ("what VAT id do I use for {e}?", "which fiscal code does {e} need on paperwork?"),
      ("GB123456789", "SE556677889901", "ES B12345678", "IE6388047V"),
      ("{e} changed their invoice email",)),
    K("liaison", "client",
      ("go through {v} for anything {e}, the rest of them ignore us", "{v} handles our account at {e}"),
      ("who do we deal with at {e}?", "who is our main person at {e}?"),
      ("Mrs. Achebe", "Mr. Kowalski", "Dr. Nakamura", "Ms. Ferreira", "Mr. Dubois"),
      ("{e} is reorganising their IT team",)),
    K("discount", "client",
      ("promised {e} {v} off as an apology for the mess up", "{e} has {v} off the reorder, I promised it on the phone"),
      ("what reduction is {e} getting?", "what price cut did we agree with {e}?"),
      ("10%", "7%", "18%", "25%", "3%"),
      ("{e} wants a quote for 200 units",)),
    K("backup", "host",
      ("restic runs on {e} {v}, in case you wonder why it's slow then", "{e} dumps to the nas {v}"),
      ("when do backups of {e} happen?", "how frequently is {e} copied somewhere safe?"),
      ("nightly at 01:15", "every four hours", "every 30 minutes", "on Mondays and Thursdays", "each Saturday at 05:00"),
      ("{e} had a kernel update last night",)),
    K("os", "host",
      ("never got round to upgrading {e}, it's {v} still", "{e} runs {v}, so no docker there"),
      ("what OS is on {e}?", "which linux version does {e} have?"),
      ("Alpine 3.14", "Ubuntu 18.04", "Debian 10", "openSUSE 15", "AlmaLinux 9"),
      ("{e} fan is really noisy",)),
    K("rack", "host",
      ("if you need to pull the disks on {e}, it's cabinet {v}", "{e} lives in {v} in the basement room"),
      ("where is {e} located physically?", "what's {e}'s rack position?"),
      ("C07-U12", "A02-U30", "D11-U05", "B19-U26", "E04-U41"),
      ("{e} got a new ip address",)),
    K("window", "host",
      ("{e} may be restarted {v} and no other time", "patch {e} {v}, the call centre is offline then"),
      ("when is it safe to take {e} down?", "what's the allowed downtime for {e}?"),
      ("Saturday 02:00-04:00", "weeknights after 23:00", "the last Sunday of the month", "Tuesday 06:00-07:00"),
      ("{e} load spikes around noon",)),
    K("wifi", "self",
      ("if a visitor asks, the lobby wlan key is {v}", "the password for the guest network got changed to {v}"),
      ("what do people coming to see us type to get online?",),
      ("sunflower-33", "pebble-2090", "otter-run-5", "maple-1144"),
      ("the printer on three is offline again",)),
    K("door", "self",
      ("main entrance locks at 7, punch {v} at the back door", "late nights use the rear keypad, {v}"),
      ("what's the code to enter after hours?",),
      ("5562#", "8080*", "2468#", "1357#"),
      ("cleaners come at 8pm now",)),
    K("parking", "self",
      ("left the van on level {v} of the garage", "the van is on {v} in the multistorey"),
      ("where's my vehicle?",),
      ("P3-21", "P1-08", "P2-44", "P4-12"),
      ("I got a parking ticket lol",)),
    K("flight", "self",
      ("booked {v} for the trip, leaves 7:05", "I'm flying {v} on friday, gate closes early"),
      ("what's my flight number?",),
      ("EI0602", "AF1341", "SK0818", "TP1275"),
      ("conference badge came in the mail",)),
]
HELD_CHATTER = ("loop {e} in pls", "{e} asked about the figures again", "has anyone heard from {e}?",
                "{e} is on the invite for thursday", "{e} was mentioned in the review", "sync with {e} after lunch",
                "dig up the old notes on {e} for me", "{e} seems ok for now", "note that {e} needs a follow up",
                "what's the status with {e}?", "{e} popped up in the incident channel", "let's park {e} until next week")
HELD_REPLIES = ("Noted, I've put {e} down.", "Okay, I'll bring {e} up at the sync.", "Sure thing, {e} it is.",
                "Understood, I'll check with {e}.", "Fine, I'll remind you about {e} later.", "Alright, {e} is in my notes.")
HELD_ASIDES = ("also the wiki is a mess again", "and the all-hands got moved to 4", "the quarterly survey closes friday",
               "someone left donuts in the kitchen", "procurement still hasn't replied", "the vpn dropped twice this morning")
HELD_TALK = {
    "openers": ("", "quick one, ", "btw ", "just remembered, ", "heads up, ", "totally unrelated but ", "right so "),
    "closers": ("", " thx", " ok", " moving on", " fyi", " haha", " anyway where were we"),
    "acks": ("Thanks, I've got that.", "Understood.", "I'll keep it in mind.", "Okay, saved that in my notes.", "Got it."),
}

SPLITS = {"dev": (DEV_CAST, DEV_KINDS, DEV_CHATTER, DEV_TALK), "held": (HELD_CAST, HELD_KINDS, HELD_CHATTER, HELD_TALK)}
EXTRAS = {"dev": (DEV_REPLIES, DEV_ASIDES), "held": (HELD_REPLIES, HELD_ASIDES)}


def unnamed(split: str) -> set[str]:
    """The kinds whose facts name no one."""
    return {k.key for k in SPLITS[split][1] if k.entity == "self"}


def gaps(split: str) -> list[str]:
    """Every statement/question pair of the split that shares a content word once the subject is
    set aside; the corpus is honest when empty."""
    kinds = SPLITS[split][1]
    questions = tuple(q for k in kinds for q in k.questions)
    asides = Kind("asides", "self", EXTRAS[split][1], questions, ("",), ())
    return shared_words([*kinds, asides], f"{split}/")


def shared_words(kinds: Any, prefix: str = "") -> list[str]:
    """Each (statement, question) pair of `kinds` (anything with `key`, `statements`, `questions`
    and `values`) that shares a content word — the same stem, or the same first five letters —
    apart from the subject `{e}`, with the words it shares."""

    def content(text: str) -> set[str]:
        return {w for w in words(text.replace("{e}", " ")) if w not in STOPWORDS}

    def clash(a: str, b: str) -> bool:
        return stem(a) == stem(b) or (min(len(a), len(b)) >= 5 and a[:5] == b[:5])

    found = []
    for kind in kinds:
        for statement in kind.statements:
            for value in kind.values:
                said = content(statement.replace("{v}", value))
                for question in kind.questions:
                    shared = sorted({a for a in said for b in content(question) if clash(a, b)})
                    if shared:
                        found.append(f"{prefix}{kind.key}: {statement!r} / {question!r} share {shared}")
    return sorted(set(found))


# --- the work around the facts -------------------------------------------------------------------------

STATUSES = ("paid", "open", "overdue", "draft", "disputed")
LOG_LINES = ("GET /api/orders 200 {ms}ms", "POST /api/login 401 {ms}ms", "worker heartbeat ok lag={ms}ms",
             "connection pool exhausted, waiting {ms}ms", "checkpoint complete: wrote {n} buffers",
             "autovacuum: processing table public.events ({n} dead tuples)", "TLS handshake timeout from 10.0.{n}.4",
             "job sync-inventory finished in {ms}ms", "disk usage /var at {n}%", "replication lag {ms}ms")
DOC = ("The {p} team will move the reporting jobs to the new scheduler before the freeze.",
       "{a} raised concerns about data retention for {c}.", "Open question: should {p} share the Postgres cluster?",
       "{a} and {b} will pair on the API review next sprint.", "Milestone two covers the import pipeline and the audit log.",
       "Load tests on {h} showed the cache hit rate dropping under sustained writes.",
       "Action item: {a} to send the revised estimate for {p} to {b}.", "{c} asked {a} for a walkthrough of the {p} screens.",
       "{b} thinks {h} is undersized for the {p} workload.", "The {c} export must keep the legacy CSV column order.")
ASKS = ("can you pull the invoices for {c}?", "what's on the calendar next week, anything with {a}?",
        "{h} feels slow again, check the logs?", "summarise my unread mail pls", "open the {p} notes and tell me what's open",
        "search the tickets mentioning {a}", "list the deploys on {h} this week")
CHAT = (("move the {p} review to thursday, {a} can't do wednesday", "Done, moved to Thursday 14:00."),
        ("draft a short reply to {c} saying numbers come friday", "Draft: Hello, thanks for your patience, the figures follow on Friday."),
        ("is {a} on the {p} kickoff invite?", "Yes, {a} accepted yesterday."),
        ("give me three bullets for the {p} status", "- scope unchanged\n- two risks, both owned\n- next review in two weeks"),
        ("what did we decide about the {h} upgrade?", "We agreed to wait until after the quarter close."),
        ("shorter pls", "Sure: on track, two risks, review in two weeks."),
        ("thanks, next", "Next up is the {p} budget line."))


class Work:
    """The session's filler: tool exchanges with long outputs that name the cast everywhere."""

    def __init__(self, rng: random.Random, cast: dict[str, list[str]], main: dict[str, list[str]] | None = None) -> None:
        self.rng = rng
        self.cast = cast
        self.main = main or cast  # whom the session is mostly about: named in half the work
        self.calls = 0

    def one(self, kind: str) -> str:
        return self.rng.choice(self.main[kind] if self.rng.random() < 0.5 else self.cast[kind])

    def names(self) -> dict[str, str]:
        a = self.one("person")
        b = self.rng.choice([p for p in self.cast["person"] if p != a])
        return {"a": a, "b": b, "p": self.one("project"), "c": self.one("client"), "h": self.one("host")}

    def exchange(self, tool: str, arguments: dict[str, Any], result: str, summary: str) -> list[Message]:
        self.calls += 1
        call_id = f"call_{self.calls:04d}"
        ask = self.rng.choice(ASKS).format(**self.names())
        return [{"role": "user", "content": ask},
                {"role": "assistant", "content": "", "tool_calls": [{"id": call_id, "name": tool, "arguments": arguments}]},
                {"role": "tool", "tool_call_id": call_id, "name": tool, "content": result, "is_error": False},
                {"role": "assistant", "content": summary}]

    def tool(self, small: bool = False) -> list[Message]:
        rng, n = self.rng, self.names()
        scale = 0.6 if small else 1.0
        kind = rng.randrange(6)
        if kind == 0:
            rows = [{"id": f"INV-{rng.randint(10000, 99999)}", "client": rng.choice(self.cast["client"]),
                     "contact": rng.choice(self.cast["person"]), "amount": round(rng.uniform(80, 24000), 2),
                     "status": rng.choice(STATUSES)} for _ in range(max(3, int(rng.randint(10, 70) * scale)))]
            return self.exchange("finance.invoice_list", {"client": n["c"]}, json.dumps({"invoices": rows}, indent=1),
                                 f"{len(rows)} invoices, {sum(r['status'] != 'paid' for r in rows)} still open.")
        if kind == 1:
            events = [{"title": f"{rng.choice(self.cast['project'])} {rng.choice(['sync', 'review', 'retro', 'demo'])}",
                       "start": f"2026-11-{rng.randint(1, 30):02d}T{rng.randint(8, 17):02d}:00",
                       "attendees": rng.sample(self.cast["person"], rng.randint(2, 5))} for _ in range(max(3, int(rng.randint(8, 40) * scale)))]
            return self.exchange("calendar.event_list", {"week": "next"}, json.dumps({"events": events}, indent=1),
                                 f"{len(events)} events next week; {n['a']} is in {sum(n['a'] in e['attendees'] for e in events)}.")
        if kind == 2:
            lines = [f"2026-11-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}Z {n['h']} "
                     + rng.choice(LOG_LINES).format(ms=rng.randint(1, 4000), n=rng.randint(1, 99)) for _ in range(max(5, int(rng.randint(40, 300) * scale)))]
            return self.exchange("hosts.logs_tail", {"host": n["h"]}, "\n".join(lines), f"Mostly noise on {n['h']}; the pool ran out twice.")
        if kind == 3:
            mails = [{"from": rng.choice(self.cast["person"]), "subject": f"Re: {rng.choice(self.cast['project'])} {rng.choice(['estimate', 'timeline', 'access'])}",
                      "body": " ".join(self.doc() for _ in range(rng.randint(1, 4)))} for _ in range(max(2, int(rng.randint(4, 16) * scale)))]
            return self.exchange("mail.search", {"unread": True}, json.dumps({"messages": mails}, indent=1),
                                 f"{len(mails)} unread, nothing urgent; most from {mails[0]['from']}.")
        if kind == 4:
            text = f"# {n['p']} notes\n\n" + "\n\n".join(" ".join(self.doc() for _ in range(rng.randint(3, 7))) for _ in range(max(2, int(rng.randint(5, 30) * scale))))
            return self.exchange("files.read", {"path": f"projects/{n['p'].lower()}/notes.md"}, text,
                                 f"Open in the {n['p']} notes: hosting, retention and who owns the alerts.")
        tickets = [{"key": f"OPS-{rng.randint(100, 999)}", "title": self.doc(), "assignee": rng.choice(self.cast["person"]),
                    "host": rng.choice(self.cast["host"])} for _ in range(max(3, int(rng.randint(6, 40) * scale)))]
        return self.exchange("tickets.search", {"q": n["a"]}, json.dumps({"tickets": tickets}, indent=1),
                             f"{len(tickets)} tickets; {sum(t['assignee'] == n['a'] for t in tickets)} assigned to {n['a']}.")

    def doc(self) -> str:
        return self.rng.choice(DOC).format(**self.names())

    def chat(self) -> list[Message]:
        ask, answer = self.rng.choice(CHAT)
        n = self.names()
        return [{"role": "user", "content": ask.format(**n)}, {"role": "assistant", "content": answer.format(**n)}]


def casual(rng: random.Random, text: str) -> str:
    """How people type in a chat box: often no capital, sometimes no full stop."""
    if rng.random() < 0.5 and text[:1].isupper() and not text[:2].isupper():
        text = text[0].lower() + text[1:]
    return text.rstrip(".") if rng.random() < 0.5 else text


def build(rng: random.Random, split: str, *, asked: int = 10, messages: int = 360) -> Conversation:
    cast_pool, kinds, chatter, talk = SPLITS[split]
    replies, asides = EXTRAS[split]
    cast = {kind: rng.sample(pool, min(len(pool), {"person": 7, "project": 4, "client": 4, "host": 4}[kind])) for kind, pool in cast_pool.items()}
    cast["self"] = [""]
    by_entity: dict[str, list[Kind]] = {}
    for kind in kinds:
        by_entity.setdefault(kind.entity, []).append(kind)
    # The session is mostly about a few: two people, one project, one client, one host. The asked
    # facts are about them, so each is named in dozens of messages, several asked facts among them.
    main = {kind: cast[kind][:2 if kind == "person" else 1] for kind in cast}
    work = Work(rng, cast, main)
    slot = {"person": "a", "project": "p", "client": "c", "host": "h"}

    def fill(template: str, entity: str, value: str = "") -> str:
        return casual(rng, template.format(e=entity, v=value))

    def about(kind: Kind, entity: str) -> str:
        """A work sentence in which the subject plays its part."""
        names = work.names()
        if kind.entity in slot:
            names[slot[kind.entity]] = entity
        return rng.choice(DOC).format(**names)

    planted: dict[tuple[str, str], Kind] = {}
    facts: dict[tuple[str, str], str] = {}
    probes: list[Probe] = []
    blocks: list[list[Message]] = []

    def turn(text: str, reply: str) -> None:
        blocks.append([{"role": "user", "content": rng.choice(talk["openers"]) + text + rng.choice(talk["closers"])},
                       {"role": "assistant", "content": reply}])

    def plant(kind: Kind, entity: str) -> str:
        if (kind.key, entity) not in facts:
            facts[(kind.key, entity)] = fill(rng.choice(kind.statements), entity, rng.choice(kind.values))
            planted[(kind.key, entity)] = kind
        return facts[(kind.key, entity)]

    for kind in rng.sample(kinds, asked):
        entity = rng.choice(main[kind.entity])
        probes.append(Probe(plant(kind, entity), rng.choice(kind.questions).format(e=entity), kind.key))
        # Distractors on the same subject: three other facts about it, the near misses of this
        # kind, and talk that names it (work sentences about it, replies that name it back); and
        # the same kind of fact about two others.
        for other in rng.sample([k for k in by_entity[kind.entity] if k is not kind], 3):
            plant(other, entity)
        for someone in rng.sample([e for e in cast[kind.entity] if e != entity], min(2, len(cast[kind.entity]) - 1)):
            plant(kind, someone)
        for text in kind.near:
            turn(fill(text, entity), rng.choice(talk["acks"]))
        if entity:
            for text in rng.sample(chatter, 10):
                said = fill(text, entity) + ". " + " ".join(about(kind, entity) for _ in range(rng.randint(0, 3)))
                turn(said, rng.choice(replies).format(e=entity))
    for key, text in facts.items():
        # Facts come with an aside or two, as people run thoughts together.
        line = text + "".join(", " + a for a in rng.sample(asides, rng.randint(1, 2)))
        turn(line, rng.choice(talk["acks"]))
    while sum(map(len, blocks)) < messages - 8:
        blocks.append(work.tool() if rng.random() < 0.8 else work.chat())
    rng.shuffle(blocks)
    # The turn in progress: small talk, a tool exchange of its own (0.6 of a full one's size:
    # what it costs is room the older messages do not get), a last word.
    tail = [work.chat(), work.tool(small=True), work.chat()]
    return Conversation([m for block in blocks + tail for m in block], probes)


def generate(split: str, count: int, seed: int | None = None) -> list[Conversation]:
    """`count` conversations of `split`, from its own seed unless one is given."""
    rng = random.Random(SEEDS[split] if seed is None else seed)
    return [build(rng, split) for _ in range(count)]
