package parser

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// A reply with no labels is taken as the final answer when it reads as
// one. These are the ways it may not: intent without content (a plan, or
// a line that says the answer is known without giving it), LangChain's
// tool gate with nothing after it, a sentence cut off mid-way, and code
// alone.

// maxUnlabelledCheck bounds the replies that are checked: a long reply
// with no labels has content.
const maxUnlabelledCheck = 600

const (
	// opener is what may stand before a plan: interjections and
	// sequencing words ("Okay, first, ...").
	opener = `(?:(?:ok(?:ay)?|sure|yes|no|alright|all right|well|now|first(?:ly)?|next|so|great|then|hmm+|right|good|to (?:answer|do) (?:this|that|the question|it)[^,.]{0,60},|to find (?:out|this|that)[^,.]{0,60},)[,!.]?\s+)*`
	// planVerbs are the verbs of acting on the world or of thinking more.
	planVerbs = `(?:search|look|use|call|check|find|calculate|compute|query|run|fetch|get|browse|try|verify|determine|figure|think|consider|start|begin|gather|research|read|open|visit|execute|invoke|ask|retrieve|analy[sz]e|break|work|perform|do|make|go|see|confirm|solve|evaluate|convert|identify|review|explore|calc|compare|summari[sz]e|list|extract|collect|obtain|estimate|inspect|download|translate|write|test|scrape|lookup|count|format|present|organi[sz]e|display|show|share|report|prepare|sort|tabulate)\b`
)

var (
	// planStart matches a sentence that announces an action: "I should
	// search for ...", "Let me use the calculator", "I'll look it up".
	planStart = lazyRegexp(`(?i)^` + opener + `(?:i(?:\s*'ll|\s*'d|\s*'m going to|\s+(?:will|shall|should|need to|must|have to|want to|would like to|am going to|are going to|can|could|now|first|then|better|might|may|still|also|just|ought to|plan to|intend to))+\s+(?:(?:first|now|then|quickly|also|just|need to|to)\s+)*` + planVerbs +
		`|let(?:\s*'s|\s+me|\s+us)\s+(?:(?:first|now|then|quickly|also|just|try to)\s+)*` + planVerbs +
		`|(?:using|use|calling|call|searching|checking|looking up)\s+(?:the\s+)?[\w.-]+\s+(?:tool|function|api)\b)`)
	// stockLine matches a sentence that says the answer is known, or the
	// question can be answered, without giving the answer.
	stockLine = lazyRegexp(`(?i)^` + opener + stockPhrase + `\s*[.!]*$`)
	// stockColon matches a stock line that goes on to give the answer
	// after a colon: "I now know the final answer: Paris."
	stockColon = lazyRegexp(`(?i)^` + opener + stockPhrase + `\s*[:：]\s*(\S[\s\S]*)$`)
	// codeLine matches a line that reads as code, not prose.
	codeLine = lazyRegexp(`^\s*(?:import\s+[\w.]+|from\s+[\w.]+\s+import\b|def\s+\w+\s*\(|class\s+\w+[:(]|func\s+\w*\s*\(|function\s+\w*\s*\(|(?:const|let|var)\s+\w+\s*=|#include\b|package\s+\w+\s*$|print\s*\(|console\.log\s*\(|return\b|if\s*\(|for\s*\(|while\s*\(|[A-Za-z_][\w.]*\s*=\s*[\w.]+\(.*|.*[;{}]\s*$|\w+(?:\.\w+)*\([^()]*\)\s*;?\s*$)`)
	// trailingFunctionWord matches a text ending in a word that cannot end
	// a sentence in English.
	trailingFunctionWord = lazyRegexp(`(?i)\b(?:the|a|an|of|to|and|or|but|is|are|was|were|be|which|than|my|your|their|its|will|would|should|can|could|if|because|such|whether|into|as|while|since|although|unless|until|i|we|they|let|very)$`)
)

// stockPhrase is the words of a line that says the answer is known.
const stockPhrase = `(?:i|we)\s+(?:now\s+|finally\s+)?(?:know|have|found|got|can (?:now\s+)?(?:give|provide|answer)|am (?:now\s+)?(?:ready|able) to (?:give|provide|answer)|have enough (?:information|info|data) to (?:answer|give|provide))\b(?:\s+(?:the|a|my|this|that))?(?:\s+(?:final|correct|complete|great|good|best|full|comprehensive|detailed|accurate|clear|short|brief|direct))?(?:\s+(?:final\s+)?(?:answer|response|result|question))?(?:\s+(?:now|to (?:this|the|that) question|to (?:the )?(?:user|original)(?:'s)? question))?`

// answerAfterStockLine finds an answer given after a line that says the
// answer is known ("I now know the final answer.\nParis is ...", "I now
// know the final answer: Paris"), as models write it when they leave out
// the Final Answer label. It returns the text up to and including that
// line, and the answer after it; ok is false when no such line is
// followed by an answer, or when what follows is a plan.
func answerAfterStockLine(text string) (before, answer string, ok bool) {
	if len(text) > maxUnlabelledCheck*4 || !strings.Contains(strings.ToLower(text), "answer") {
		return "", "", false
	}
	start := 0
	for _, end := range sentenceEnds(text) {
		s := strings.TrimSpace(text[start:end])
		if m := stockColon().FindStringSubmatchIndex(s); m != nil && isStockLine(s[:strings.IndexAny(s, ":：")]) {
			off := start + strings.Index(text[start:], s)
			return strings.TrimRight(text[:off+m[2]], ":： \t"), cleanText(text[off+m[2]:]), true
		}
		if s != "" && isStockLine(s) {
			answer := cleanText(text[end:])
			if answer == "" || planStart().MatchString(answer) {
				return "", "", false
			}
			return strings.TrimSpace(text[:end]), answer, true
		}
		start = end
	}
	return "", "", false
}

// notAnAnswer reports why an unlabelled reply is not a final answer, as
// the error for the model, or nil when it reads as one.
func (p *Parser) notAnAnswer(content string) error {
	if len(content) > maxUnlabelledCheck {
		if answerCutOff(content) {
			return p.errNotAnAnswer(errCutOff)
		}
		if endsInPlan(lastSentence(content)) {
			return p.errNotAnAnswer(errPlan + p.toolList() + errPlanEnd)
		}
		return nil
	}
	if gateReply(content) {
		return p.errNotAnAnswer("Your reply only says whether a tool is needed. If one is, write \"Action:\" with its name" + p.toolList() + " and \"Action Input:\" with its arguments; if not, write the answer after \"Final Answer:\".")
	}
	if g, ok := firstGate(content); ok {
		return p.errGate(g.answer)
	}
	if onlyCode(content) {
		return p.errNotAnAnswer("Your reply is only code, with no Action and no Final Answer. To run it, call a tool" + p.toolList() + "; if the code is the answer, write it after \"Final Answer:\".")
	}
	sentences := splitSentences(content)
	if len(sentences) == 0 {
		return nil
	}
	intent, announced, acks := true, false, 0
	for _, s := range sentences {
		if isAck(s) {
			acks++ // "Okay.", "Sure!": neither content nor intent
			continue
		}
		announces := isAnnouncement(s)
		if !(planStart().MatchString(s) || isStockLine(s) || announces) || hasContent(s) || len(s) > maxPlanSentence {
			intent = false
			break
		}
		announced = announced || announces
	}
	if acks == len(sentences) {
		intent = false
	}
	switch {
	case intent && isStockLine(sentences[acks]):
		return p.errNotAnAnswer("Your reply says you know the answer but does not give it. Write it after \"Final Answer:\".")
	case intent && announced:
		return p.errNotAnAnswer("Your reply says what you found but does not give it. Write the answer itself after \"Final Answer:\".")
	case intent:
		return p.errNotAnAnswer("Your reply says what you will do but does not do it. To use a tool, write \"Action:\" with its name" + p.toolList() + " and \"Action Input:\" with its arguments; if you know the answer, write it after \"Final Answer:\".")
	case cutOff(content):
		return p.errNotAnAnswer(errCutOff)
	case endsInPlan(sentences[len(sentences)-1]):
		return p.errNotAnAnswer(errPlan + p.toolList() + errPlanEnd)
	}
	return nil
}

// The message for a reply that says what it will do and does not.
const (
	errPlan    = "Your reply says what you will do but does not do it. To use a tool, write \"Action:\" with its name"
	errPlanEnd = " and \"Action Input:\" with its arguments; if you know the answer, write it after \"Final Answer:\"."
)

// isAck reports whether s, a sentence, only acknowledges: at most three
// words of ackWords.
func isAck(s string) bool {
	if len(s) > 32 {
		return false
	}
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(",.!?;:", r)
	})
	if len(words) == 0 || len(words) > 3 {
		return false
	}
	for _, w := range words {
		if !ackWords()[w] {
			return false
		}
	}
	return true
}

// isPlanClause reports whether s opens with a clause that says what the
// writer will do next, definitely ("I will now search ...", "so I'll look
// it up", "Let me check"): not an offer ("I can also look it up") or a
// wish. It reads a few words by hand: it runs on every clause of a
// reply's last sentence.
func isPlanClause(s string) bool {
	var buf [12]string
	words := clauseWords(buf[:0], s)
	i := 0
	for i < len(words) && sequenceWord(words[i]) {
		i++
	}
	next := func(w ...string) bool {
		for k, x := range w {
			if i+k >= len(words) || !wordIs(words[i+k], x) {
				return false
			}
		}
		i += len(w)
		return true
	}
	switch {
	case next("i'll"), next("i", "will"), next("i", "shall"), next("i", "must"), next("i", "am", "going", "to"), next("i'm", "going", "to"),
		next("i", "am", "about", "to"), next("i'm", "about", "to"), next("i", "need", "to"), next("i", "have", "to"):
		for i < len(words) {
			if planAdverb(words[i]) {
				i++
			} else if !next("go", "ahead", "and") && !next("proceed", "to") && !next("try", "to") {
				break
			}
		}
	case next("let's"), next("lets"), next("let", "me"), next("let", "us"):
		for i < len(words) && planAdverb(words[i]) {
			i++
		}
	default:
		return false
	}
	if i == len(words) || len(words[i]) > 16 {
		return false
	}
	var low [16]byte
	for k := 0; k < len(words[i]); k++ {
		low[k] = words[i][k] | 0x20 // a verb is ASCII letters: others find none
	}
	return planVerbSet()[string(low[:len(words[i])])]
}

// wordIs reports whether w, a word as written, is lower, a word in lower
// case with straight apostrophes.
func wordIs(w, lower string) bool {
	if strings.EqualFold(w, lower) {
		return true
	}
	return strings.Contains(w, "’") && strings.EqualFold(strings.ReplaceAll(w, "’", "'"), lower)
}

// clauseWords appends the first words of s to words, as far as words
// has room and the clause goes.
func clauseWords(words []string, s string) []string {
	for len(words) < cap(words) {
		s = strings.TrimLeft(s, " \t,;")
		end := strings.IndexAny(s, " \t,;.!?:")
		if end < 0 {
			end = len(s)
		}
		if end == 0 {
			break
		}
		words = append(words, s[:end])
		if end < len(s) && strings.IndexByte(".!?:", s[end]) >= 0 {
			break
		}
		s = s[end:]
	}
	return words
}

// sequenceWord reports whether w may open a clause before its subject:
// "so I will ...", "Okay, let me ...".
func sequenceWord(w string) bool {
	for _, x := range [...]string{"so", "and", "then", "now", "next", "first", "okay", "ok", "alright"} {
		if strings.EqualFold(w, x) {
			return true
		}
	}
	return false
}

// planAdverb reports whether w may stand between "I will" or "Let me"
// and the verb.
func planAdverb(w string) bool {
	for _, x := range [...]string{"now", "first", "then", "next", "quickly", "also", "just"} {
		if strings.EqualFold(w, x) {
			return true
		}
	}
	return false
}

// planVerbSet holds the verbs of planVerbs, each spelling.
var planVerbSet = sync.OnceValue(func() map[string]bool {
	verbs := map[string]bool{}
	for _, v := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(planVerbs, "(?:"), ")\\b"), "|") {
		if i := strings.IndexByte(v, '['); i >= 0 { // analy[sz]e
			verbs[v[:i]+v[i+1:i+2]+v[i+4:]] = true
			verbs[v[:i]+v[i+2:i+3]+v[i+4:]] = true
			continue
		}
		verbs[v] = true
	}
	return verbs
})

// endsInPlan reports whether s, the last sentence of a reply, states
// what the writer will do next, in itself or in its last clause ("...,
// so I will look it up"), without a condition and without giving content
// after a colon.
func endsInPlan(s string) bool {
	if len(s) > maxPlanSentence*2 || strings.HasSuffix(s, "?") {
		return false
	}
	if isProgress(s) {
		return true
	}
	// The clause starts, from the last: a plan ends the sentence.
	var starts [maxPlanClauses + 1]int
	n, end := 0, len(s)
	for n < maxPlanClauses {
		k := strings.LastIndexAny(s[:end], ",;")
		if k < 0 {
			break
		}
		starts[n], n, end = k+1, n+1, k
	}
	starts[n], n = 0, n+1
	for c := 0; c < n; c++ {
		if !isPlanClause(s[starts[c]:]) {
			continue
		}
		from := 0 // the clause before the plan's, where a condition may stand
		if c+1 < n {
			from = starts[c+1]
		}
		return !hasContent(s[starts[c]:]) && !hasCondition(s[from:])
	}
	return false
}

// isProgress reports whether s, a sentence, says what is being done and
// trails off, as a progress line does: "Searching for the population of
// France...", "Looking it up…".
func isProgress(s string) bool {
	if !strings.HasSuffix(s, "...") && !strings.HasSuffix(s, "…") {
		return false
	}
	first := s
	if i := strings.IndexAny(s, " \t,."); i >= 0 {
		first = s[:i]
	}
	var buf [24]byte
	low, ok := lowerWord(buf[:0], first)
	if !ok || len(low) < 5 || string(low[len(low)-3:]) != "ing" {
		return false
	}
	base, verbs := string(low[:len(low)-3]), planVerbSet()
	return verbs[base] || verbs[base+"e"] || len(base) > 2 && base[len(base)-1] == base[len(base)-2] && verbs[base[:len(base)-1]]
}

// maxPlanClauses bounds the clauses at the end of a sentence that
// endsInPlan reads.
const maxPlanClauses = 3

// hasCondition reports whether a word of s, in any case, opens one of
// conditionWords, in one pass.
func hasCondition(s string) bool {
	for i := 0; i < len(s); i++ {
		if i > 0 && s[i-1] != ' ' || s[i]|0x20 < 'a' || s[i]|0x20 > 'z' {
			continue
		}
		for _, c := range conditionWords {
			if len(s)-i >= len(c) && strings.EqualFold(s[i:i+len(c)], c) {
				return true
			}
		}
	}
	return false
}

// errCutOff is the message for a reply that stops in the middle of a
// sentence.
const errCutOff = "Your reply stops in the middle of a sentence. Finish it: write \"Final Answer:\" and the whole answer, or an Action and its Action Input."

// maxCutTail is how much of the end of a long reply cutOff reads.
const maxCutTail = 160

// gateReply reports whether text only answers the tool gate: a bare yes
// or no ("Yes.", "No"), or one followed by words about needing a tool
// ("No, I do not need a tool.", "Yes, I do."), and nothing more. "No,
// it is not." says more, and stays an answer.
func gateReply(text string) bool {
	if len(text) > 120 {
		return false
	}
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(",.!?;:。，！？", r)
	})
	if len(words) == 0 || !gateOpeners()[words[0]] {
		return false
	}
	rest := words[1:]
	if len(rest) == 0 {
		return true
	}
	tool := false
	for _, w := range rest {
		if !gateWords()[w] {
			return false
		}
		tool = tool || strings.HasPrefix(w, "tool") || strings.HasPrefix(w, "action") || strings.HasPrefix(w, "function")
	}
	// Without a tool named, only "I do" and "I don't" answer the gate.
	return tool || len(rest) >= 2 && len(rest) <= 3 && (rest[0] == "i" || rest[0] == "we") && (rest[1] == "do" || rest[1] == "don't" || rest[1] == "dont")
}

// resultVerbs are the verbs of getting a result, which a sentence that
// announces the result without giving it uses. Verbs of doing a task
// ("I have created the file.") are not among them: that sentence is the
// answer.
const resultVerbs = `(?:have|got|gotten|found|obtained|retrieved|calculated|computed|gathered|collected|fetched|determined|identified|located|extracted|received|pulled|looked up)`

// resultWords are the determiners and adjectives that open the result
// such a sentence names ("the average duration", "all the data").
const resultWords = `(?:(?:all|both)\s+)?(?:the|a|an|all|this|that|these|those|each|every|my|our|some|enough|sufficient|necessary|relevant|required|needed|requested|desired|full|complete|final)\b`

// announcement matches a sentence that says a result is at hand without
// giving it: "I have the average duration for each employee.", "We
// found all the matching rows.", "The search returned the results.",
// "The averages have been calculated.", "Here are the results."
var announcement = lazyRegexp(`(?i)^` + opener + `(?:` +
	`(?:i|we)(?:\s*'ve|\s+have)?(?:\s+(?:now|finally|already|successfully|just|also))*\s+` + resultVerbs + `\s+` + resultWords +
	`|(?:the|this|that)\s+(?:search|tool|query|lookup|calculation|api|function|request|observation|results?|output|data)\s+(?:has\s+)?(?:returned|gave|given|provided|shows|showed|shown|contains|produced|yielded|lists)\s+` + resultWords +
	`|(?:the|all|these|those|both)\b[^:=\d"“]*\b(?:has|have|was|were)\s+(?:now\s+|successfully\s+)*(?:been\s+)?` + resultVerbs +
	`|(?:here(?:'s|\s+is|\s+are)|below\s+(?:is|are))\b` +
	`)[^:=\d"“]*$`)

// isAnnouncement reports whether s says it has a result without giving
// it. A negation is content ("I found no results"), and so are a number,
// a colon or a quotation.
func isAnnouncement(s string) bool {
	if !announcement().MatchString(s) {
		return false
	}
	l := " " + strings.ToLower(s) + " "
	for _, neg := range []string{" no ", " not ", "n't ", " none ", " nothing ", " never "} {
		if strings.Contains(l, neg) {
			return false
		}
	}
	return true
}

// answerCutOff reports whether a labelled final answer stops in the
// middle of a sentence: after a comma, a colon, an opening bracket or
// quote, or a lower-case word that cannot end a sentence. It reads only
// the end, and asks more than cutOff, because a labelled answer is meant
// as one: a semicolon may end code, and "Plan A" a sentence.
func answerCutOff(text string) bool {
	tail := strings.TrimRightFunc(text[max(0, len(text)-maxCutTail):], unicode.IsSpace)
	r, _ := utf8.DecodeLastRuneInString(tail)
	switch {
	case strings.ContainsRune(",:：([{“‘", r):
		return true
	case !unicode.IsLower(r):
		return false
	}
	sentence := tail[strings.LastIndexAny(tail, "\n.!?")+1:]
	word := sentence[strings.LastIndexAny(sentence, " \t")+1:]
	return answerTrailingWords()[word] && strings.Count(strings.TrimSpace(sentence), " ") >= 2
}

// maxPlanSentence bounds a sentence that announces a plan and nothing
// else: a longer one says more.
const maxPlanSentence = 160

// isStockLine reports whether s says the answer is known without giving it.
func isStockLine(s string) bool {
	if !stockLine().MatchString(s) {
		return false
	}
	l := strings.ToLower(s)
	return strings.Contains(l, "answer") || strings.Contains(l, "response") || strings.Contains(l, "result")
}

// lastSentence returns the last sentence of text, as splitSentences
// would give it, read backwards from its end: at most maxPlanSentence*2
// bytes of it.
func lastSentence(text string) string {
	tail := strings.TrimRightFunc(text[max(0, len(text)-maxPlanSentence*2):], unicode.IsSpace)
	body := strings.TrimRight(tail, ".!?。！？")
	for i := len(body) - 1; i >= 0; i-- {
		switch c := body[i]; {
		case c == '\n':
			return strings.TrimSpace(tail[i+1:])
		case c == '.' || c == '!' || c == '?':
			if i+1 < len(body) && (body[i+1] == ' ' || body[i+1] == '\n') {
				return strings.TrimSpace(tail[i+1:])
			}
		case c >= utf8.RuneSelf && i >= 2:
			if w := body[i-2 : i+1]; w == "。" || w == "！" || w == "？" {
				return strings.TrimSpace(tail[i+1:])
			}
		}
	}
	return strings.TrimSpace(tail)
}

// splitSentences splits text into its sentences and lines, trimmed.
func splitSentences(text string) []string {
	var out []string
	start := 0
	for _, end := range sentenceEnds(text) {
		if s := strings.TrimSpace(text[start:end]); s != "" {
			out = append(out, s)
		}
		start = end
	}
	return out
}

// sentenceEnds returns where the sentences and lines of text end, the
// end of the text last.
func sentenceEnds(text string) []int {
	var ends []int
	for i, r := range text {
		switch {
		case r == '\n':
			ends = append(ends, i)
		case strings.ContainsRune(".!?。！？", r):
			next := i + utf8.RuneLen(r)
			if next >= len(text) || text[next] == ' ' || text[next] == '\n' || r >= utf8.RuneSelf {
				ends = append(ends, next)
			}
		}
	}
	return append(ends, len(text))
}

// hasContent reports whether a sentence that opens as a plan still
// carries content: a colon or an equals sign with something after it.
func hasContent(s string) bool {
	for _, sep := range []string{": ", "：", " = ", " is "} {
		if i := strings.Index(s, sep); i >= 0 && strings.TrimSpace(strings.TrimRight(s[i+len(sep):], ".!")) != "" {
			return true
		}
	}
	return false
}

// cutOff reports whether text stops in the middle of a sentence: it ends
// in a comma, a colon, an opening bracket or quote, or a word that cannot
// end a sentence.
func cutOff(text string) bool {
	text = strings.TrimRightFunc(text, unicode.IsSpace)
	r, _ := utf8.DecodeLastRuneInString(text)
	switch {
	case strings.ContainsRune(",:;([{“‘-—", r):
		return !strings.HasSuffix(text, "--")
	case strings.ContainsRune(".!?。！？)]}'\"”’`*|>", r) || unicode.IsDigit(r):
		return false
	}
	// Only a few words: a label-free short answer ("Paris", "Yes, it
	// is") is fine; a sentence that trails off on a function word is not.
	last := strings.Fields(text[strings.LastIndexAny(text, "\n.!?")+1:])
	if len(last) == 2 && subjectWords()[strings.ToLower(last[1])] {
		return true // "First, I": a subject with no verb after it
	}
	return len(last) >= 3 && trailingFunctionWord().MatchString(text)
}

// onlyCode reports whether text is code and nothing else: one fenced
// block, or lines that all read as code. JSON data is an answer, not code.
func onlyCode(text string) bool {
	if text[0] == '{' || text[0] == '[' {
		return false
	}
	if strings.HasPrefix(text, "```") {
		body := strings.TrimLeft(text, "`")
		nl := strings.IndexByte(body, '\n')
		if nl < 0 {
			return false
		}
		end := strings.Index(body[nl:], "```")
		return end < 0 || strings.TrimSpace(body[nl+end+3:]) == ""
	}
	lines := 0
	for line := range strings.SplitSeq(text, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if !codeLine().MatchString(line) {
			return false
		}
		lines++
	}
	return lines > 0
}

// errGate is the error for LangChain's "Do I need to use a tool?" line
// with nothing usable after it.
func (p *Parser) errGate(answer string) error {
	if answer == "no" {
		return p.errNotAnAnswer("Your reply says no tool is needed but gives no answer. Write the answer after \"Final Answer:\".")
	}
	return p.errNotAnAnswer("Your reply asks whether a tool is needed but calls none. Write \"Action:\" with a tool" + p.toolList() + " and \"Action Input:\" with its arguments, or the answer after \"Final Answer:\".")
}

// gatePhrase is the question of LangChain's conversational tool gate.
const gatePhrase = "do i need to use a tool"

// hasGate reports whether text may hold the tool gate line, or a line
// that asks as it does ("If I need to use a tool?"), at memchr speed.
func hasGate(text string) bool {
	const gate = "need to use a tool"
	for i := 0; ; {
		k := strings.IndexByte(text[i:], '?')
		if k < 0 {
			return false
		}
		i += k + 1
		if before := strings.TrimRight(text[:i-1], " "); len(before) >= len(gate) && strings.EqualFold(before[len(before)-len(gate):], gate) {
			return true
		}
	}
}

// gate is LangChain's conversational tool gate: "Do I need to use a
// tool? Yes", on a line of its own, perhaps after a Thought label, or
// inside a line, after what the model thought before it ("..., so no
// lookup is needed. Do I need to use a tool? No").
type gate struct {
	at     int    // where it starts: its line, or its question inside a line
	answer string // "yes", "no", or "" when it gives neither
	after  int    // where what follows its answer starts
}

// firstGate returns the first tool gate of text.
func firstGate(text string) (gate, bool) {
	var first gate
	found := false
	eachGate(text, func(g gate) bool {
		first, found = g, true
		return false
	})
	return first, found
}

// lastGate returns the last tool gate of text.
func lastGate(text string) (gate, bool) {
	var last gate
	found := false
	eachGate(text, func(g gate) bool {
		last, found = g, true
		return true
	})
	return last, found
}

// eachGate calls fn with the tool gates of text in order, until fn
// returns false. A gate is the question, in any case, at the start of a
// line (past white space and a "Thought:" label) or inside one, where a
// word starts, then after white space a "yes" or "no" as a word, or else
// any word, or the gate is none. It reads text once, question marks at
// memchr speed.
func eachGate(text string, fn func(gate) bool) {
	for i := 0; ; {
		k := strings.IndexByte(text[i:], '?')
		if k < 0 {
			return
		}
		q := i + k
		i = q + 1
		if q < len(gatePhrase) || !strings.EqualFold(text[q-len(gatePhrase):q], gatePhrase) {
			continue
		}
		at, ok := gateStart(text, q-len(gatePhrase))
		if !ok {
			continue
		}
		j := q + 1
		for j < len(text) && isRegexpSpace(text[j]) {
			j++
		}
		answer := ""
		switch {
		case hasWord(text, j, "yes"):
			answer = "yes"
		case hasWord(text, j, "no"):
			answer = "no"
		case j == len(text) || !isWordByte(text[j]):
			continue // nothing after the question: no gate
		}
		if !fn(gate{at: at, answer: answer, after: j + len(answer)}) {
			return
		}
	}
}

// gateStart reports whether the gate's question, which starts at
// text[start], is one: it opens its line, past white space and a
// "Thought:" label, and then the gate starts where that white space
// does; or it starts a word inside a line, and the gate starts with it.
func gateStart(text string, start int) (int, bool) {
	p := skipSpaceBack(text, start)
	if label := len("thought:"); p >= label && strings.EqualFold(text[p-label:p], "thought:") {
		q := skipSpaceBack(text, p-label)
		if q == 0 || strings.IndexByte(text[q:p-label], '\n') >= 0 {
			return q, true // the line starts with the label
		}
	}
	if p == 0 || strings.IndexByte(text[p:start], '\n') >= 0 {
		return p, true
	}
	return start, !isWordByte(text[start-1])
}

// gateFollowedBy returns where the text that follows the answer of gate
// g on its line starts, past white space and punctuation ("No. AI:
// ...", "Yes — Action: ..."), and whether anything does.
func gateFollowedBy(text string, g gate) (int, bool) {
	i := g.after
	for i < len(text) {
		if c := text[i]; c == ' ' || c == '\t' || c == '.' || c == ',' || c == ';' || c == ':' || c == '!' || c == '-' {
			i++
		} else if strings.HasPrefix(text[i:], "—") || strings.HasPrefix(text[i:], "–") {
			i += len("—")
		} else {
			break
		}
	}
	return i, i < len(text) && text[i] != '\n' && text[i] != '\r'
}

// gateCall returns where the Action label stands that follows the first
// tool gate of text, answered "Yes", on the gate's own line ("The user
// asks for the weather. Do I need to use a tool? Yes Action: ..."): the
// call the gate opens, which no label before it on its line shows.
func gateCall(text string) (int, bool) {
	g, ok := firstGate(text)
	if !ok || g.answer != "yes" {
		return 0, false
	}
	return gateAction(text, g)
}

// gateAction returns where the Action label stands that follows gate g
// on its line, if one does.
func gateAction(text string, g gate) (int, bool) {
	at, ok := gateFollowedBy(text, g)
	if !ok {
		return 0, false
	}
	end := strings.IndexByte(text[at:], '\n')
	if end < 0 {
		end = len(text)
	} else {
		end += at
	}
	if m, ok := lineLabel(text, at, end); !ok || m.kind != labelAction {
		return 0, false
	}
	return at, true
}

// skipSpaceBack returns where the white space that ends at text[end]
// starts.
func skipSpaceBack(text string, end int) int {
	for end > 0 && isRegexpSpace(text[end-1]) {
		end--
	}
	return end
}

// isRegexpSpace reports whether c is white space as \s is in Go's
// regular expressions.
func isRegexpSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

// isWordByte reports whether c is a word character as \b reads them.
func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z'
}

// hasWord reports whether text holds word, in any case, at offset at,
// and no word character right after it.
func hasWord(text string, at int, word string) bool {
	end := at + len(word)
	return end <= len(text) && strings.EqualFold(text[at:end], word) && (end == len(text) || !isWordByte(text[end]))
}

// dropSpeaker removes a role name that opens a reply with no labels
// ("AI: Paris is ..."), and Llama 2's token that ends the user's turn
// ("[/INST]"): neither is part of the answer.
func dropSpeaker(content string) string {
	if rest, ok := strings.CutPrefix(content, userTurnEnd); ok && strings.TrimSpace(rest) != "" {
		content = strings.TrimSpace(rest)
	}
	for _, name := range speakers {
		if rest, ok := strings.CutPrefix(content, name+":"); ok && strings.TrimSpace(rest) != "" {
			return strings.TrimSpace(rest)
		}
	}
	return content
}

// gateAnswer reads the answer of LangChain's conversational format: the
// gate line answered "No", then "AI: <answer>", on the lines below or
// right after the gate's answer ("... Do I need to use a tool? No AI:
// Hello!").
func gateAnswer(content string) (string, bool) {
	if !hasGate(content) {
		return "", false
	}
	if g, ok := firstGate(content); ok && g.answer == "no" {
		if at, ok := gateFollowedBy(content, g); ok {
			if answer := strings.TrimSpace(aiAt(content, at)); answer != "" {
				return answer, true
			}
		}
	}
	answer := strings.TrimSpace(aiAnswer(content))
	return answer, answer != ""
}

// aiAnswer returns what follows the first line of text that opens with
// "AI:" (past white space; white space may stand before the colon too),
// from the first letter after it that is not white space to the end of
// text, or "" when no such line is followed by any. It reads each line's
// start once.
func aiAnswer(text string) string {
	for start := 0; start < len(text); {
		i := start
		for i < len(text) && isRegexpSpace(text[i]) {
			i++
		}
		if answer := aiAt(text, i); answer != "" {
			return answer
		}
		nl := strings.IndexByte(text[i:], '\n')
		if nl < 0 {
			return ""
		}
		start = i + nl + 1
	}
	return ""
}

// aiAt returns what follows "AI:" at text[i] (white space may stand
// before the colon), from the first letter after it that is not white
// space to the end of text, or "" when "AI:" does not stand there or
// nothing follows it.
func aiAt(text string, i int) string {
	if !strings.HasPrefix(text[i:], "AI") {
		return ""
	}
	j := i + len("AI")
	for j < len(text) && isRegexpSpace(text[j]) {
		j++
	}
	if j == len(text) || text[j] != ':' {
		return ""
	}
	j++
	for j < len(text) && isRegexpSpace(text[j]) {
		j++
	}
	return text[j:]
}
