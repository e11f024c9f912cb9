"""Czech."""

from __future__ import annotations

from desktop_app.core.retrieval.languages.language import (
    Language,
    phrases,
    values,
    word_set,
    word_tuple,
)

LANGUAGE = Language(
    code="cs",
    name="Czech",
    function_words=word_set(
        "a aby ale ani asi by byl co do i jak jaka jake jaky je jeho jejich ji jsem jsou k kde "
        "kdo kdy kolik ktera ktere ktery mi na nebo od po pri pro proc s se si ta tak te to u v "
        "ve z za ze "
        "mam ma mame maji musim musi mohu muze lze byt bude budou potrebuji potrebuju neco nekdo"
    ),
    question_words=word_set(
        "jaky jaka jake jakou ktery ktera ktere kolik dlouho kdy proc kdo kde kam cim co ceho cemu"
    ),
    answer_kinds={
        "duration": phrases("jak dlouho|jak dlouhou|kolik casu|kolik hodin|kolik minut"),
        "quantity": phrases(
            "kolik|jak velk|jak vysok|jak daleko|jak star|pri jake teplote|jaka teplota"
        ),
        "date": phrases("kdy|v jakem roce|ktereho roku|od kdy"),
        "person": phrases("kdo|koho|komu|kym"),
        "place": phrases("kde|kam|odkud"),
        "name": phrases("ktery|ktera|ktere|kterou|jak se jmenuje"),
    },
    procedure=(
        r"jak (?:mohu|muzu|lze|se da|mam|nastavim|udelam)",
        r"jakym prikazem",
        r"jaky prikaz",
    ),
    fix_turns=phrases("m[íi]sto toho|na[šs]t[ěe]st[íi]|[řr]e[šs]en[íi]"),
    temperature_asked=("teplot",),
    degrees=(r"\bstup[nň]",),
    number_words=values(
        "jeden:1 jedna:1 jedno:1 jednu:1 dva:2 dve:2 tri:3 ctyri:4 pet:5 sest:6 sedm:7 osm:8 "
        "devet:9 deset:10 jedenact:11 dvanact:12 tucet:12 dvacet:20 tricet:30 sto:100 "
        "tisic:1000 milion:1000000 milionu:1000000 pul:0.5"
    ),
    short_figures=word_set("tri pet dva dve osm sto pul"),
    articles=frozenset(),
    duration_articles=frozenset(),
    time_units=word_tuple("hodin hodiny sekund den dn tyden tydn mesic rok let noc vecer"),
    months=word_set(
        "leden unor brezen duben kveten cerven cervenec srpen zari rijen listopad prosinec "
        "ledna unora brezna dubna kvetna cervna cervence srpna rijna listopadu prosince"
    ),
    weekdays=word_set("pondeli utery streda ctvrtek patek sobota nedele"),
    follow_up_openers=word_set("a i tak"),
    abbreviations=("tzv", "tj", "např"),
)
