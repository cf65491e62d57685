"""A reopened conversation shows the lines that led to each answer (issue 47): the routing
("Proposed: EXO-24-003 (strong) · …"), the lock, a switch that was on offer, in order."""

from mitra.chat.events import Candidates, Locked, Notice, PastTurn, Recalled, SwitchOffer, UserSaid
from mitra.chat.saved import lead_in, recalled
from mitra.core.types import Analysis, RoutedAnalysis
from mitra.store.conversations import SavedTurn

EXO, HIG = Analysis(id="EXO-24-003", title="Monojet"), Analysis(id="HIG-24-001", title="H to mumu")


def test_the_lines_before_each_turn_come_back_as_they_were_shown():
    first, second = (PastTurn(SavedTurn(analysis_id="EXO-24-003", question=q)) for q in ("1", "2"))  # two turns
    transcript = [
        UserSaid("dominant background?"),
        Candidates("dominant background?", [RoutedAnalysis(analysis=EXO, score=1.0, confidence="strong"),
                                            RoutedAnalysis(analysis=HIG, score=0.4)], 0.6),
        Locked(EXO, []), first,
        UserSaid("and in the dimuon search?"),
        SwitchOffer("and in the dimuon search?", EXO, RoutedAnalysis(analysis=HIG, score=1.0), 0.1),
        Notice("Answering from EXO-24-003, as asked."), second,
    ]
    lines = lead_in(transcript, first)
    shown = recalled(SavedTurn(analysis_id="EXO-24-003", question="dominant background?", shown={"lead": lines}))
    assert [type(e) for e in shown] == [UserSaid, Recalled, Locked]
    assert shown[1].text == "Proposed: EXO-24-003 (strong) · HIG-24-001 (weak)"
    assert (shown[2].analysis.id, shown[2].analysis.title) == ("EXO-24-003", "Monojet")

    again = recalled(SavedTurn(analysis_id="EXO-24-003", question="q", shown={"lead": lead_in(transcript, second)}))
    assert again == [UserSaid("and in the dimuon search?"), Recalled("Proposed switching to HIG-24-001."),
                     Notice("Answering from EXO-24-003, as asked.")]


def test_a_turn_saved_before_the_lines_were_kept_shows_its_question():
    assert recalled(SavedTurn(analysis_id="EXO-24-003", question="q", shown={"kind": "answer"})) == [UserSaid("q")]
    assert lead_in([UserSaid("q")], object()) == []  # the turn is gone (a new conversation began)
