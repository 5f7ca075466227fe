package parser

import "sync"

// The words the parser knows, in every language it reads them in: the
// labels of the protocol, and the words that say a value names no tool
// (refusals, placeholders) or is no answer. Each table is built on its
// first use (see lazy.go). Keys are lower case.

// labelWords maps a label's words, lower-cased with spaces, underscores and
// hyphens removed, to its kind.
var labelWords = sync.OnceValue(func() map[string]label {
	return map[string]label{
		"thought":         labelThought,
		"thoughts":        labelThought,
		"thinking":        labelThought,
		"though":          labelThought, // "Thought" with its last letter lost
		"reasoning":       labelThought,
		"思考":              labelThought,
		"想法":              labelThought,
		"action":          labelAction,
		"tool":            labelAction,
		"toolname":        labelAction,
		"actionname":      labelAction,
		"toolcall":        labelAction,
		"functioncall":    labelAction,
		"functionname":    labelAction,
		"行动":              labelAction,
		"动作":              labelAction,
		"actioninput":     labelInput,
		"actioninputs":    labelInput,
		"actionargs":      labelInput,
		"actionargument":  labelInput,
		"actionarguments": labelInput,
		"toolinput":       labelInput,
		"toolargs":        labelInput,
		"toolarguments":   labelInput,
		"行动输入":            labelInput,
		"动作输入":            labelInput,
		"finalanswer":     labelFinal,
		"answer":          labelFinal,
		"最终答案":            labelFinal,
		"最终回答":            labelFinal,
		"答案":              labelFinal,
		"observation":     labelObservation,
		"observations":    labelObservation,
		"观察":              labelObservation,
		"观察结果":            labelObservation,
		"question":        labelQuestion,
		"问题":              labelQuestion,
		"actionoutput":    labelObservation,
		"actionresult":    labelObservation,
		"tooloutput":      labelObservation,
		"toolresult":      labelObservation,
		// A made-up next turn of the conversation ends the reply as a made-up
		// observation does.
		"human": labelObservation, "user": labelObservation,
		// So does the PAUSE with which some ReAct prompts have the model wait
		// for the observation after its action.
		"pause": labelObservation,
		// The labels as models write them when they answer in another
		// language, keyed as above (accents kept, apostrophes dropped).
		"pensamiento": labelThought, "pensamento": labelThought, "pensée": labelThought, "réflexion": labelThought,
		"gedanke": labelThought, "gedanken": labelThought, "überlegung": labelThought, "pensiero": labelThought,
		"мысль": labelThought, "мысли": labelThought, "размышление": labelThought, "考え": labelThought, "생각": labelThought,
		"acción": labelAction, "accion": labelAction, "ação": labelAction, "acao": labelAction, "aktion": labelAction,
		"azione": labelAction, "действие": labelAction, "行動": labelAction, "アクション": labelAction, "행동": labelAction, "액션": labelAction,
		"entradadeacción": labelInput, "entradadelaacción": labelInput, "entradadeaccion": labelInput, "entradadaação": labelInput,
		"entradadeação": labelInput, "entréedelaction": labelInput, "entréedaction": labelInput, "aktionseingabe": labelInput,
		"aktioneingabe": labelInput, "inputdellazione": labelInput, "вводдействия": labelInput, "行動入力": labelInput,
		"アクション入力": labelInput, "行動輸入": labelInput, "행동입력": labelInput, "액션입력": labelInput,
		"respuestafinal": labelFinal, "respostafinal": labelFinal, "réponsefinale": labelFinal, "endgültigeantwort": labelFinal,
		"finaleantwort": labelFinal, "rispostafinale": labelFinal, "окончательныйответ": labelFinal, "итоговыйответ": labelFinal,
		"финальныйответ": labelFinal, "最終回答": labelFinal, "最終答案": labelFinal, "最终答复": labelFinal, "最终回复": labelFinal,
		"최종답변": labelFinal, "최종답": labelFinal,
		"observación": labelObservation, "observacion": labelObservation, "observação": labelObservation,
		"beobachtung": labelObservation, "osservazione": labelObservation, "наблюдение": labelObservation,
		"観察": labelObservation, "観測": labelObservation, "觀察": labelObservation, "관찰": labelObservation,
		"input":      labelArgs,
		"inputs":     labelArgs,
		"args":       labelArgs,
		"arguments":  labelArgs,
		"parameters": labelArgs,
		"params":     labelArgs,
		"输入":         labelArgs,
		"参数":         labelArgs,
	}
})

// proseWords are label words that count at the start of a line but not
// inside one, where prose uses them ("The Answer: is 42", "the Tool: a
// hammer", "Reasoning: below"): inside a line only the protocol's own
// labels count.
var proseWords = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"answer": true, "tool": true, "thoughts": true, "thinking": true, "reasoning": true, "though": true,
		"question": true, "答案": true, "human": true, "user": true}
})

// genericWords are the words models add to a tool's name ("Calculator
// Tool", "the web_search function") that name no tool themselves.
var genericWords = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"tool": true, "tools": true, "function": true, "func": true, "api": true,
		"plugin": true, "the": true, "use": true, "call": true, "using": true, "action": true}
})

// phraseOpeners are the words that open a sentence about the step, not
// a tool's name: "I will use pandas ...", "Let me ...".
var phraseOpeners = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"i": true, "i'll": true, "i'm": true, "i've": true, "we": true, "we'll": true,
		"let": true, "let's": true, "lets": true, "you": true, "my": true, "our": true, "now": true, "first": true,
		"then": true, "next": true, "so": true, "this": true, "that": true, "it": true, "there": true, "here": true,
		"please": true, "to": true}
})

// genericTail are the words a model adds to a tool's name that do not
// make it a sentence ("Wikipedia Search Tool").
var genericTail = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"tool": true, "tools": true, "function": true, "api": true, "plugin": true}
})

// refusalWords are the first words of a value that says no tool is
// needed, in the languages the labels come in: "None needed", "No action
// needed (I have the prices)", "Not applicable", "Ninguna", "Keine".
var refusalWords = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"none": true, "no": true, "nothing": true, "not": true, "n/a": true, "na": true, "null": true, "nil": true,
		"without": true, "no_action": true, "no-action": true, "noaction": true, "no_tool": true,
		"ninguna": true, "ninguno": true, "ningún": true, "ningun": true, "nada": true, "sin": true,
		"nenhuma": true, "nenhum": true, "não": true, "nao": true, "sem": true,
		"aucune": true, "aucun": true, "rien": true, "pas": true, "sans": true, "non": true,
		"keine": true, "kein": true, "keiner": true, "keines": true, "nichts": true, "nicht": true, "ohne": true,
		"nessuna": true, "nessuno": true, "niente": true, "nulla": true, "senza": true,
		"нет": true, "не": true, "никакое": true, "никакого": true, "никаких": true, "никакой": true, "ничего": true, "без": true,
	}
})

// Refusals in the scripts that do not part words with spaces: those that
// open a value, and those found anywhere in it.
var (
	refusalOpeners = []string{"不", "无", "無", "没", "沒", "暂无", "否", "なし", "無し", "없"}
	refusalParts   = []string{"不需要", "无需", "無需", "不必", "不要", "不用", "なし", "ありません", "없음", "없습니다", "필요 없", "불필요"}
)

// placeholderWords are the words of a placeholder that a prompt puts
// where the tool's name goes and a model copies: "$TOOL_NAME", "<tool
// name>", "[your tool]", "{tool_name}". "Action" is not among them: a
// tool may be called so.
var placeholderWords = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"tool": true, "tools": true, "name": true, "names": true, "toolname": true,
		"actionname": true, "function": true, "functions": true, "functionname": true, "func": true, "the": true,
		"your": true, "a": true, "an": true, "to": true, "take": true, "use": true, "one": true, "of": true,
		"here": true, "insert": true, "selected": true, "chosen": true, "appropriate": true, "which": true,
		"should": true, "be": true, "api": true, "plugin": true, "command": true, "this": true, "that": true,
		"next": true, "step": true, "some": true, "xxx": true, "placeholder": true, "example": true,
	}
})

// finishKeys are the lookup keys (see nameKeys) of the names isFinish
// knows.
var finishKeys = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"finish": true, "final_answer": true, "finalanswer": true, "answer": true, "final": true, "最终答案": true,
		// Answering written as a tool the model made up.
		"respond": true, "response": true, "reply": true, "speak": true, "say": true, "final_response": true, "finalresponse": true,
		"direct_answer": true, "directanswer": true, "respond_directly": true, "responddirectly": true, "answer_directly": true,
		"answerdirectly": true, "direct_response": true, "directresponse": true}
})

// ackWords are the words of a sentence that only acknowledges ("Okay.",
// "Sure!", "Got it."), which says neither what the answer is nor what
// comes next.
var ackWords = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"ok": true, "okay": true, "sure": true, "alright": true, "all": true, "right": true, "got": true,
		"it": true, "understood": true, "certainly": true, "of": true, "course": true, "great": true, "good": true, "fine": true,
		"yes": true, "absolutely": true, "no": true, "problem": true, "question": true, "hmm": true, "well": true, "perfect": true, "thanks": true}
})

// conditionWords mark a sentence whose plan holds on a condition ("If you
// want, I will search for more."): an offer, not a step.
var conditionWords = []string{"if ", "unless ", "should you", "whenever", "when you", "once you"}

// gateWords are the words of a reply that only answers LangChain's tool
// gate ("Do I need to use a tool?"), after its yes or no.
var gateWords = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"i": true, "we": true, "do": true, "don't": true, "dont": true, "not": true,
		"need": true, "needs": true, "to": true, "use": true, "a": true, "an": true, "any": true, "the": true,
		"tool": true, "tools": true, "action": true, "actions": true, "function": true, "functions": true,
		"it": true, "for": true, "this": true, "that": true, "here": true, "now": true, "question": true,
		"call": true, "require": true, "required": true, "needed": true, "necessary": true, "is": true,
		"isn't": true, "no": true, "one": true, "will": true, "won't": true, "am": true, "answer": true}
})

// gateOpeners are the words that open a reply to the gate: yes and no,
// in the languages models answer in.
var gateOpeners = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"yes": true, "no": true, "yeah": true, "yep": true, "nope": true, "y": true, "n": true,
		"sí": true, "si": true, "oui": true, "non": true, "ja": true, "nein": true, "да": true, "нет": true,
		"是": true, "否": true, "是的": true, "不": true, "不是": true, "需要": true, "不需要": true, "はい": true, "いいえ": true, "네": true, "아니요": true}
})

// answerTrailingWords are the lower-case words that cannot end a
// sentence.
var answerTrailingWords = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"the": true, "a": true, "an": true, "of": true, "to": true, "and": true, "or": true,
		"but": true, "with": true, "for": true, "from": true, "into": true, "which": true, "than": true, "because": true,
		"such": true, "their": true, "its": true, "my": true, "your": true, "our": true}
})

// subjectWords are the pronouns that cannot end a sentence of two words.
var subjectWords = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"i": true, "we": true, "they": true}
})

// speakers are the role names a model may put before its answer, as chat
// transcripts write them.
var speakers = []string{"AI", "Assistant", "ASSISTANT", "assistant", "Agent", "Bot"}

// Keys of the JSON-object protocols models use instead of labelled lines,
// lower-cased. Which protocols: {"thought", "action": {"name",
// "arguments"}} / {"thought", "answer"}; LangChain's {"action",
// "action_input"}; OpenAI-style {"name", "arguments"} and {"function":
// {...}}; AutoGPT's {"thoughts", "command": {"name", "args"}}.
var (
	thoughtKeys = []string{"thought", "thoughts", "reasoning", "思考"}
	answerKeys  = []string{"final_answer", "finalanswer", "final answer", "answer", "response", "output", "最终答案"}
	callKeys    = []string{"action", "tool", "tool_name", "command", "function", "tool_call", "function_call", "行动"}
	argKeys     = []string{"action_input", "arguments", "args", "input", "tool_input", "parameters", "params", "action_variables", "variables", "行动输入"}
)

// inputPlaceholders are the words and literals an Action Input holds to
// say there is no input, lower-cased, without quotes, brackets or a full
// stop around them ("None", "N/A", "(empty string)").
var inputPlaceholders = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"none": true, "null": true, "nil": true, "n/a": true, "na": true, "empty": true,
		"empty string": true, "an empty string": true, "no input": true, "no inputs": true, "nothing": true,
		"no arguments": true, "no args": true, "no parameters": true, "not applicable": true, "-": true, "无": true}
})
