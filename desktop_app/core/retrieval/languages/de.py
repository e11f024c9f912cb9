"""German."""

from __future__ import annotations

from desktop_app.core.retrieval.languages.language import (
    Language,
    phrases,
    values,
    word_set,
    word_tuple,
)

LANGUAGE = Language(
    code="de",
    name="German",
    function_words=word_set(
        "aber als am an auch auf aus bei bin bis das dass dem den der des die dies doch du ein "
        "eine einem einen einer er es fur hat ich ihr im in ist ja kann man mit muss nach nicht "
        "noch nur oder sich sie sind so um und uns von vor war was wer wie wir wo zu zum zur "
        "soll sollte sollen werden wird wurde wurden haben hatte hatten gibt geben "
        "konnen musste mussen machen macht etwas jemand"
    ),
    question_words=word_set(
        "wie welche welcher welches welchen wann viele viel lange wieso warum weshalb wo wer"
    ),
    answer_kinds={
        "duration": phrases("wie lange|wie viel zeit"),
        "quantity": phrases(
            "wie viele|wie viel|wieviel|wieviele|wie hoch|wie gross|wie weit|wie alt|"
            "welche temperatur|bei welcher temperatur"
        ),
        "date": phrases("wann|in welchem jahr|seit wann|welches jahr"),
        "person": phrases("wer|wem|wen|wessen"),
        "place": phrases("wo|wohin|woher"),
        "name": phrases("welche|welcher|welches|welchen|welchem|wie heisst"),
    },
    procedure=(
        r"wie (?:kann|konnte|muss|soll) (?:ich|man)",
        r"wie mache ich",
        r"wie lasst sich",
        r"wie geht",
        r"gibt es (?:einen|eine) (?:befehl|weg|option)",
        r"welcher befehl",
    ),
    fix_turns=phrases("stattdessen|jedoch|zum gl[üu]ck|die l[öo]sung|der trick|besser"),
    temperature_asked=("temperat",),
    degrees=(r"\bgrad\b",),
    number_words=values(
        "ein:1 eine:1 einen:1 einem:1 einer:1 zwei:2 drei:3 vier:4 funf:5 fuenf:5 sechs:6 "
        "sieben:7 acht:8 neun:9 zehn:10 elf:11 zwolf:12 dutzend:12 zwanzig:20 dreissig:30 "
        "dreißig:30 hundert:100 tausend:1000 millionen:1000000 halb:0.5 halbe:0.5"
    ),
    short_figures=word_set("elf"),
    articles=word_set("ein eine einen einem einer"),
    duration_articles=word_set("eine einen"),
    time_units=word_tuple("stund minut sekund tag woche monat jahr nacht abend"),
    months=word_set(
        "januar februar marz april mai juni juli august september oktober november dezember"
    ),
    weekdays=word_set("montag dienstag mittwoch donnerstag freitag samstag sonntag"),
    follow_up_openers=word_set("und dann"),
    abbreviations=(r"z\.\s?B", "bzw", "ca", "vgl", "Nr"),
    noun_determiners=word_set(
        "der die das den dem des ein eine einen einem einer eines kein keine keinen keinem meine "
        "mein meinen dein deine sein seine ihr ihre unser unsere diese dieser dieses diesen jede "
        "jeder jedes viele einige alle"
    ),
    noun_endings=word_tuple("ung heit keit schaft chen lein nis tät"),
)
