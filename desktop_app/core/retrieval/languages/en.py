"""English."""

from __future__ import annotations

from desktop_app.core.retrieval.languages.language import (
    Language,
    phrases,
    values,
    word_set,
    word_tuple,
)

LANGUAGE = Language(
    code="en",
    name="English",
    function_words=word_set(
        "a an and are as at be but by can could did do does for from had has have how i if in "
        "into is it its me my no not of on or our should so than that the their them then there "
        "these they this to was we were what when where which who why will with would you your "
        "get gets got go goes going went take takes took make makes made put puts need needs "
        "anything something anyone someone over"
    ),
    question_words=word_set("what which whom whose much many long where who when why"),
    answer_kinds={
        "duration": phrases("how long|how much time|for how long"),
        "quantity": phrases(
            "how many|how much|how far|how old|how big|how large|how high|how heavy|"
            "what percentage|what temperature|which temperature|at what temperature"
        ),
        "date": phrases("when|what year|which year|in what year|what date|what century|since when"),
        "person": phrases("who|whom|whose"),
        "place": phrases("where"),
        "name": phrases("which|what is the name|what was the name"),
    },
    procedure=(
        r"how (?:do|can|could|would|should) (?:i|you|we|one)",
        r"how to",
        r"what do i do",
        r"can i",
        r"is there (?:a|an|any) (?:\w+ )?(?:way|shortcut|command|flag|option|setting)",
        r"(?:what s|what is|which is) (?:the|a) (?:\w+ ){0,2}way",
        r"(?:what|which) (?:\w+ )?(?:command|flag|option|setting|shortcut|keys?)",
    ),
    fix_turns=phrases(
        "however|instead|fortunately|luckily|the trick|the solution|the fix|a better way|"
        "the answer|to fix|to solve|the way to"
    ),
    temperature_asked=("temperat",),
    degrees=(r"\bdegree",),
    number_words=values(
        "one:1 a:1 an:1 two:2 three:3 four:4 five:5 six:6 seven:7 eight:8 nine:9 ten:10 "
        "eleven:11 twelve:12 dozen:12 twenty:20 thirty:30 hundred:100 thousand:1000 "
        "million:1000000 half:0.5"
    ),
    short_figures=word_set("two six ten"),
    articles=word_set("a an"),
    duration_articles=word_set("a an"),
    time_units=word_tuple("hour minute second day week month year decade century night evening"),
    months=word_set(
        "january february march april may june july august september october november december"
    ),
    weekdays=word_set("monday tuesday wednesday thursday friday saturday sunday"),
    follow_up_openers=word_set("and also then so but"),
    abbreviations=(r"e\.g", r"i\.e", "Mr", "Mrs", "Ms", "Dr", "St"),
    prose_before_flag=word_set("use the a an with and or add pass run try type set call"),
)
