#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace forkscope::ui {

// The words the window uses that a newcomer cannot guess, each explained once: Help >
// Glossary lists them, and the widgets that show one take its tooltip from here, so the two
// never disagree.
struct GlossaryEntry
{
    QString term;
    QString meaning; // one or two sentences, plain text
};

const QList<GlossaryEntry>& glossary();
// The meaning of `term` ("safe height"), or an empty string.
QString glossaryMeaning(const QString& term);
// "term: meaning" for each, a blank line apart: a tooltip that explains the words.
QString explain(const QStringList& terms);

// Help > Getting started, as simple HTML.
QString gettingStartedHtml();
// Help > Glossary, as simple HTML.
QString glossaryHtml();

} // namespace forkscope::ui
