#pragma once

#include "engine/SourceSpec.h"

#include <QDialog>
#include <functional>

class QDialogButtonBox;
class QLabel;
class QLineEdit;

namespace forkscope::ui {

// "Add contract..." and "Add factory...": a source is accepted only once it is checked, before
// anything is written: the address (and a factory's creation event and child argument) by
// engine::SourceSpec::check(), then the code at the address by the engine, which asks the
// node on its own thread (askCode returns the ticket; the answer comes to applyCodeCheck).
// While the node is asked, OK waits; an answer of no code, or no answer, is said in the
// dialog and nothing is accepted.
class AddSourceDialog : public QDialog
{
    Q_OBJECT
public:
    using AskCode = std::function<quint64(const QString& address)>;
    AddSourceDialog(engine::SourceSpec::Kind kind, AskCode askCode, QWidget* parent = nullptr);

    QLineEdit* addressEdit() const { return m_address; }
    QLineEdit* eventEdit() const { return m_event; }
    QLineEdit* childArgEdit() const { return m_childArg; }
    QDialogButtonBox* buttons() const { return m_buttons; }
    QString message() const;
    // What was checked (valid once the dialog is accepted).
    const engine::SourceSpec& spec() const { return m_spec; }
    bool waitingForNode() const { return m_ticket != 0; }

public slots:
    // Answers of other tickets (another dialog's, an earlier try's) are not this one's.
    void applyCodeCheck(const forkscope::engine::CodeCheck& check);

private:
    void tryAccept();
    void say(const QString& text, bool error);

    engine::SourceSpec::Kind m_kind;
    AskCode m_askCode;
    QLineEdit* m_address;
    QLineEdit* m_event = nullptr;
    QLineEdit* m_childArg = nullptr;
    QLabel* m_message;
    QDialogButtonBox* m_buttons;
    engine::SourceSpec m_spec;
    quint64 m_ticket = 0;
};

} // namespace forkscope::ui
