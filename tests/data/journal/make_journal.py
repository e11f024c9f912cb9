"""Writes the journal test set: two years of daily notes in English, German and Czech with
dated, tagged events, undated topic notes that talk about the same things, and questions scoped
by time or tag whose gold note is the one day that answers them.

usage: python tests/data/journal/make_journal.py   (deterministic; rewrites notes/ and
questions.jsonl next to this file)

The questions are drawn from the generated data, not from Quire's behaviour: for each time
phrase (resolved against TODAY) and each kind of event, a question is kept when exactly one note
inside the phrase's span records that kind of event and at least two outside it do (so without
the scope, the question matches several notes equally well). Tag questions: an event with an
extra tag (#family, …) that is the only one of its kind with that tag.
"""

from __future__ import annotations

import calendar
import json
import random
import shutil
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
TODAY = date(2026, 12, 2)  # QUIRE_TODAY for the bench
FIRST, LAST = date(2024, 12, 1), date(2026, 12, 1)
SEED = 23
LANGS = ("en", "de", "cs")


@dataclass(frozen=True)
class Topic:
    key: str
    tag: str
    note: dict[str, str]  # per language, with {x}
    details: dict[str, list[str]]
    question: dict[str, str]  # per language, with {p} for the time phrase


TOPICS = [
    Topic("cook", "cooking",
          {"en": "Cooked {x} for dinner.", "de": "Zum Abendessen {x} gekocht.",
           "cs": "K večeři jsem uvařil {x}."},
          {"en": ["lentil soup", "mushroom risotto", "beef goulash", "pumpkin curry"],
           "de": ["Linsensuppe", "Pilzrisotto", "Rindergulasch", "Kürbiscurry"],
           "cs": ["čočkovou polévku", "houbové rizoto", "hovězí guláš", "dýňové kari"]},
          {"en": "What did I cook for dinner {p}?", "de": "Was habe ich {p} zum Abendessen gekocht?",
           "cs": "Co jsem {p} uvařil k večeři?"}),
    Topic("run", "sport",
          {"en": "Went running along the river, {x} km.", "de": "Am Fluss entlang gelaufen, {x} km.",
           "cs": "Běžel jsem podél řeky, {x} km."},
          {lang: ["5", "8", "10", "12"] for lang in LANGS},
          {"en": "How far did I run along the river {p}?",
           "de": "Wie weit bin ich {p} am Fluss entlang gelaufen?",
           "cs": "Kolik km jsem {p} běžel podél řeky?"}),
    Topic("plumber", "house",
          {"en": "The plumber came about the heating and {x}.",
           "de": "Der Installateur war wegen der Heizung da und hat {x}.",
           "cs": "Instalatér přišel kvůli topení a {x}."},
          {"en": ["replaced the valve", "bled the radiators", "changed the pump"],
           "de": ["das Ventil getauscht", "die Heizkörper entlüftet", "die Pumpe gewechselt"],
           "cs": ["vyměnil ventil", "odvzdušnil radiátory", "vyměnil čerpadlo"]},
          {"en": "What did the plumber do about the heating {p}?",
           "de": "Was hat der Installateur {p} an der Heizung gemacht?",
           "cs": "Co instalatér {p} udělal s topením?"}),
    Topic("book", "books",
          {"en": "Finished reading {x}.", "de": "Das Buch {x} zu Ende gelesen.",
           "cs": "Dočetl jsem knihu {x}."},
          {lang: ["Solaris", "Dune", "Momo", "The Name of the Rose"] for lang in LANGS},
          {"en": "Which book did I finish reading {p}?",
           "de": "Welches Buch habe ich {p} zu Ende gelesen?",
           "cs": "Jakou knihu jsem {p} dočetl?"}),
    Topic("meet", "work",
          {"en": "Met {x} to discuss the budget.", "de": "Besprechung mit {x} über das Budget.",
           "cs": "Schůzka s kolegou {x} o rozpočtu."},
          {lang: ["Anna", "Jonas", "Petra", "Lukas"] for lang in LANGS},
          {"en": "Who did I meet to discuss the budget {p}?",
           "de": "Mit wem hatte ich {p} eine Besprechung über das Budget?",
           "cs": "S kým jsem měl {p} schůzku o rozpočtu?"}),
    Topic("dentist", "health",
          {"en": "At the dentist: {x}.", "de": "Beim Zahnarzt: {x}.", "cs": "U zubaře: {x}."},
          {"en": ["a new filling", "a cleaning", "an x-ray"],
           "de": ["eine neue Füllung", "eine Reinigung", "ein Röntgenbild"],
           "cs": ["nová plomba", "čištění", "rentgen"]},
          {"en": "What happened at the dentist {p}?", "de": "Was war {p} beim Zahnarzt?",
           "cs": "Co bylo {p} u zubaře?"}),
    Topic("garden", "garden",
          {"en": "Planted {x} in the garden.", "de": "Im Garten {x} gepflanzt.",
           "cs": "Na zahradě jsem zasadil {x}."},
          {"en": ["tomatoes", "tulips", "an apple tree", "garlic"],
           "de": ["Tomaten", "Tulpen", "einen Apfelbaum", "Knoblauch"],
           "cs": ["rajčata", "tulipány", "jabloň", "česnek"]},
          {"en": "What did I plant in the garden {p}?", "de": "Was habe ich {p} im Garten gepflanzt?",
           "cs": "Co jsem {p} zasadil na zahradě?"}),
    Topic("train", "travel",
          {"en": "Took the train to {x}.", "de": "Mit dem Zug nach {x} gefahren.",
           "cs": "Jel jsem vlakem do {x}."},
          {"en": ["Vienna", "Berlin", "Brno", "Munich"], "de": ["Wien", "Berlin", "Brünn", "München"],
           "cs": ["Vídně", "Berlína", "Brna", "Mnichova"]},
          {"en": "Where did I take the train to {p}?", "de": "Wohin bin ich {p} mit dem Zug gefahren?",
           "cs": "Kam jsem {p} jel vlakem?"}),
]  # fmt: skip
EXTRA_TAGS = ("family", "friends", "birthday", "holiday")
FILLER = {
    "en": ["Grey morning, light rain.", "Slept badly.", "Sunny and cold all day.",
           "Long day, tired in the evening.", "Called mum in the evening.", "Quiet day at home."],
    "de": ["Grauer Morgen, leichter Regen.", "Schlecht geschlafen.", "Sonnig und kalt.",
           "Langer Tag, abends müde.", "Abends mit Mama telefoniert.", "Ruhiger Tag zu Hause."],
    "cs": ["Šedivé ráno, mrholilo.", "Špatně jsem spal.", "Slunečno a zima.",
           "Dlouhý den, večer unavený.", "Večer jsem volal mámě.", "Klidný den doma."],
}  # fmt: skip
TOPIC_NOTES = {
    "recipes/dinners.md": "# Dinner ideas\n\nCook lentil soup, mushroom risotto, beef goulash or "
    "pumpkin curry for dinner. Linsensuppe und Rindergulasch zum Abendessen kochen. K večeři "
    "uvařit čočkovou polévku nebo guláš.\n",
    "house/heating.md": "# Heating\n\nThe plumber services the heating every autumn: valve, "
    "radiators, pump. Der Installateur prüft die Heizung. Instalatér kontroluje topení.\n",
    "books/reading-list.md": "# Reading list\n\nFinish reading Solaris, Dune, Momo and The Name "
    "of the Rose. Welches Buch lese ich zu Ende? Kterou knihu dočtu?\n",
    "work/budget.md": "# Budget\n\nMeet Anna, Jonas, Petra and Lukas to discuss the budget. "
    "Besprechung über das Budget. Schůzka o rozpočtu.\n",
    "health/dentist.md": "# Dentist\n\nAt the dentist twice a year: cleaning, filling, x-ray. "
    "Beim Zahnarzt. U zubaře.\n",
    "garden/plan.md": "# Garden plan\n\nPlant tomatoes, tulips, garlic and an apple tree in the "
    "garden. Im Garten pflanzen. Na zahradě zasadit rajčata.\n",
    "travel/trains.md": "# Trains\n\nTake the train to Vienna, Berlin, Brno or Munich. Mit dem "
    "Zug nach Wien fahren. Vlakem do Vídně.\n",
    "sport/running.md": "# Running\n\nRun along the river, 5 to 12 km. Am Fluss entlang laufen. "
    "Běhat podél řeky.\n",
}
MONTHS = {
    "en": [calendar.month_name[m] for m in range(1, 13)],
    "de": ["Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September",
           "Oktober", "November", "Dezember"],
    "cs_in": ["lednu", "únoru", "březnu", "dubnu", "květnu", "červnu", "červenci", "srpnu",
              "září", "říjnu", "listopadu", "prosinci"],
    "cs_of": ["ledna", "února", "března", "dubna", "května", "června", "července", "srpna",
              "září", "října", "listopadu", "prosince"],
}  # fmt: skip


@dataclass(frozen=True)
class Entry:
    day: date
    lang: str
    path: str
    events: tuple[tuple[str, str, str], ...]  # (topic key, detail, extra tag or "")


def plan_days(rng: random.Random) -> list[Entry]:
    entries = []
    lang = "en"
    day = FIRST
    while day <= LAST:
        if day.day == 1 or rng.random() < 0.03:  # a month (or a spell) in another language
            lang = rng.choice(LANGS)
        events = []
        for topic in TOPICS:
            if rng.random() < 0.045:
                extra = rng.choice(EXTRA_TAGS) if rng.random() < 0.12 else ""
                events.append((topic.key, rng.choice(topic.details[lang]), extra))
        entries.append(Entry(day, lang, note_path(day, rng), tuple(events)))
        day += timedelta(days=1)
    return entries


def note_path(day: date, rng: random.Random) -> str:
    """Where people keep daily notes: ISO file names, folders per year and month, local dates,
    or a dated front matter in a named file (see `render`)."""
    style = rng.randrange(4)
    if style == 0:
        return f"daily/{day.isoformat()}.md"
    if style == 1:
        return f"journal/{day.year}/{day.month:02d}/{day.day:02d}.md"
    if style == 2:
        return f"denik/{day.day:02d}.{day.month:02d}.{day.year}.md"
    return f"log/{day.year}/entry-{day.timetuple().tm_yday:03d}.md"  # dated by front matter


def render(entry: Entry, rng: random.Random) -> str:
    by_key = {t.key: t for t in TOPICS}
    lines = [rng.choice(FILLER[entry.lang])]
    tags: list[str] = []
    for key, detail, extra in entry.events:
        lines.append(by_key[key].note[entry.lang].format(x=detail))
        tags.append(by_key[key].tag)
        if extra:
            tags.append(extra)
    lines.append(rng.choice(FILLER[entry.lang]))
    body = " ".join(lines)
    if tags:
        body += "\n\n" + " ".join(f"#{t}" for t in dict.fromkeys(tags))
    if entry.path.startswith("log/"):
        return f"---\ndate: {entry.day.isoformat()}\n---\n{body}\n"
    return body + "\n"


def windows(lang: str) -> list[tuple[str, date, date]]:
    """Time phrases of this language with the span each one means on TODAY."""
    monday = TODAY - timedelta(days=TODAY.weekday())
    last_week = (monday - timedelta(days=7), monday - timedelta(days=1))
    yesterday = TODAY - timedelta(days=1)
    out = {
        "en": [("yesterday", yesterday, yesterday), ("last week", *last_week),
               ("last month", date(2026, 11, 1), date(2026, 11, 30))],
        "de": [("gestern", yesterday, yesterday), ("letzte Woche", *last_week),
               ("letzten Monat", date(2026, 11, 1), date(2026, 11, 30))],
        "cs": [("včera", yesterday, yesterday), ("minulý týden", *last_week),
               ("minulý měsíc", date(2026, 11, 1), date(2026, 11, 30))],
    }[lang]  # fmt: skip
    for n in range(2, 7):  # "3 weeks ago": that calendar week
        first = monday - timedelta(days=7 * n)
        phrase = {"en": f"{n} weeks ago", "de": f"vor {n} Wochen", "cs": f"před {n} týdny"}[lang]
        out.append((phrase, first, first + timedelta(days=6)))
    for n in range(2, 12):  # "5 months ago": that calendar month
        year, month_number = TODAY.year, TODAY.month - n
        if month_number < 1:
            year, month_number = year - 1, month_number + 12
        last_day = calendar.monthrange(year, month_number)[1]
        phrase = {"en": f"{n} months ago", "de": f"vor {n} Monaten", "cs": f"před {n} měsíci"}[lang]
        out.append((phrase, date(year, month_number, 1), date(year, month_number, last_day)))
    month = date(FIRST.year, FIRST.month, 1)
    while month <= LAST:
        last = date(month.year, month.month, calendar.monthrange(month.year, month.month)[1])
        m = month.month - 1
        phrase = {"en": f"in {MONTHS['en'][m]} {month.year}",
                  "de": f"im {MONTHS['de'][m]} {month.year}",
                  "cs": f"v {MONTHS['cs_in'][m]} {month.year}"}[lang]  # fmt: skip
        out.append((phrase, month, last))
        month = last + timedelta(days=1)
    for offset in range(3, 700, 23):  # single days, written as people date them
        day = TODAY - timedelta(days=offset)
        phrase = {"en": f"on {day.day} {MONTHS['en'][day.month - 1]} {day.year}",
                  "de": f"am {day.day}. {MONTHS['de'][day.month - 1]} {day.year}",
                  "cs": f"{day.day}. {MONTHS['cs_of'][day.month - 1]} {day.year}"}[lang]  # fmt: skip
        out.append((phrase, day, day))
    return out


def time_questions(entries: list[Entry], rng: random.Random) -> list[dict[str, object]]:
    found: list[dict[str, object]] = []
    for lang in LANGS:
        for phrase, first, last in windows(lang):
            for topic in TOPICS:
                inside = [e for e in entries if first <= e.day <= last
                          and any(k == topic.key for k, _, _ in e.events)]  # fmt: skip
                outside = sum(1 for e in entries if not first <= e.day <= last
                              and any(k == topic.key for k, _, _ in e.events))  # fmt: skip
                if len(inside) == 1 and inside[0].lang == lang and outside >= 2:
                    found.append({"question": topic.question[lang].format(p=phrase),
                                  "gold": inside[0].path, "kind": "time", "lang": lang,
                                  "span": [first.isoformat(), last.isoformat()]})  # fmt: skip
    rng.shuffle(found)
    by_kind: dict[str, list[dict[str, object]]] = {}
    for q in found:
        kind = _window_kind(str(q["question"]))
        by_kind.setdefault(kind, []).append(q)
    picked = []
    for kind, items in sorted(by_kind.items()):
        picked += items[: {"relative": 24, "month": 30, "day": 16}[kind]]
    return picked


def _window_kind(question: str) -> str:
    words = ("yesterday", "last week", "last month", "gestern", "letzte Woche", "letzten Monat",
             "včera", "minulý týden", "minulý měsíc", "ago", "vor ", "před ")  # fmt: skip
    if any(w in question for w in words):
        return "relative"
    return "day" if any(ch.isdigit() for ch in question.split("20")[0]) else "month"


def tag_questions(entries: list[Entry]) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for topic in TOPICS:
        for extra in EXTRA_TAGS:
            tagged = [e for e in entries if (topic.key, extra) in {(k, x) for k, _, x in e.events}]
            others = sum(1 for e in entries if any(k == topic.key for k, _, _ in e.events))
            if len(tagged) == 1 and others >= 3:
                question = topic.question[tagged[0].lang].format(p="").replace("  ", " ")
                question = question.replace(" ?", "?")
                out.append({"question": f"tag:{extra} {question}", "gold": tagged[0].path,
                             "kind": "tag", "lang": tagged[0].lang})  # fmt: skip
    return out


def main() -> None:
    rng = random.Random(SEED)
    entries = plan_days(rng)
    notes = HERE / "notes"
    shutil.rmtree(notes, ignore_errors=True)
    for entry in entries:
        path = notes / entry.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render(entry, rng), "utf-8")
    for rel, text in TOPIC_NOTES.items():
        (notes / rel).parent.mkdir(parents=True, exist_ok=True)
        (notes / rel).write_text(text, "utf-8")
    questions = time_questions(entries, rng) + tag_questions(entries)
    with open(HERE / "questions.jsonl", "w", encoding="utf-8") as f:
        for n, q in enumerate(questions, start=1):
            f.write(json.dumps({"id": f"journal-{n:03d}", **q}, ensure_ascii=False) + "\n")
    kinds: dict[str, int] = {}
    for q in questions:
        kinds[str(q["kind"])] = kinds.get(str(q["kind"]), 0) + 1
    print(f"{len(entries)} daily notes, {len(TOPIC_NOTES)} topic notes, {len(questions)} "
          f"questions {kinds}")  # fmt: skip


if __name__ == "__main__":
    main()
