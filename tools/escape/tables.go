package escape

import "unicode"

// defaultIgnorable is Unicode's Default_Ignorable_Code_Point property:
// characters that show as nothing where a font has no glyph for them. It
// is taken from DerivedCoreProperties.txt of the Unicode Character
// Database (https://www.unicode.org/Public/15.1.0/ucd/DerivedCoreProperties.txt,
// the same in 14.0 and 16.0), unassigned code points included, which the
// standard reserves as ignorable; Go's package unicode has no table of it.
var defaultIgnorable = &unicode.RangeTable{
	R16: []unicode.Range16{
		{0x00ad, 0x00ad, 1}, // soft hyphen
		{0x034f, 0x034f, 1}, // combining grapheme joiner
		{0x061c, 0x061c, 1}, // Arabic letter mark
		{0x115f, 0x1160, 1}, // Hangul choseong and jungseong fillers
		{0x17b4, 0x17b5, 1}, // Khmer inherent vowels
		{0x180b, 0x180f, 1}, // Mongolian variation selectors and vowel separator
		{0x200b, 0x200f, 1}, // zero-width space, non-joiner and joiner, direction marks
		{0x202a, 0x202e, 1}, // direction embeddings and overrides
		{0x2060, 0x206f, 1}, // word joiner, invisible operators, isolates, deprecated format characters
		{0x3164, 0x3164, 1}, // Hangul filler
		{0xfe00, 0xfe0f, 1}, // variation selectors 1 to 16
		{0xfeff, 0xfeff, 1}, // zero-width no-break space (byte-order mark)
		{0xffa0, 0xffa0, 1}, // halfwidth Hangul filler
		{0xfff0, 0xfff8, 1}, // reserved
	},
	R32: []unicode.Range32{
		{0x1bca0, 0x1bca3, 1}, // shorthand format controls
		{0x1d173, 0x1d17a, 1}, // musical symbol format controls
		{0xe0000, 0xe0fff, 1}, // tags, variation selectors 17 to 256, reserved
	},
	LatinOffset: 1,
}

// pictographic is Unicode's Extended_Pictographic property: emoji and the
// symbols that may become emoji, reserved code points of emoji blocks
// included. It is taken from emoji-data.txt
// (https://www.unicode.org/Public/15.0.0/ucd/emoji/emoji-data.txt), its
// ranges merged where they meet.
var pictographic = &unicode.RangeTable{
	R16: []unicode.Range16{
		{0x00a9, 0x00a9, 1},
		{0x00ae, 0x00ae, 1},
		{0x203c, 0x203c, 1},
		{0x2049, 0x2049, 1},
		{0x2122, 0x2122, 1},
		{0x2139, 0x2139, 1},
		{0x2194, 0x2199, 1},
		{0x21a9, 0x21aa, 1},
		{0x231a, 0x231b, 1},
		{0x2328, 0x2328, 1},
		{0x2388, 0x2388, 1},
		{0x23cf, 0x23cf, 1},
		{0x23e9, 0x23f3, 1},
		{0x23f8, 0x23fa, 1},
		{0x24c2, 0x24c2, 1},
		{0x25aa, 0x25ab, 1},
		{0x25b6, 0x25b6, 1},
		{0x25c0, 0x25c0, 1},
		{0x25fb, 0x25fe, 1},
		{0x2600, 0x2605, 1},
		{0x2607, 0x2612, 1},
		{0x2614, 0x2685, 1},
		{0x2690, 0x2705, 1},
		{0x2708, 0x2712, 1},
		{0x2714, 0x2714, 1},
		{0x2716, 0x2716, 1},
		{0x271d, 0x271d, 1},
		{0x2721, 0x2721, 1},
		{0x2728, 0x2728, 1},
		{0x2733, 0x2734, 1},
		{0x2744, 0x2744, 1},
		{0x2747, 0x2747, 1},
		{0x274c, 0x274c, 1},
		{0x274e, 0x274e, 1},
		{0x2753, 0x2755, 1},
		{0x2757, 0x2757, 1},
		{0x2763, 0x2767, 1},
		{0x2795, 0x2797, 1},
		{0x27a1, 0x27a1, 1},
		{0x27b0, 0x27b0, 1},
		{0x27bf, 0x27bf, 1},
		{0x2934, 0x2935, 1},
		{0x2b05, 0x2b07, 1},
		{0x2b1b, 0x2b1c, 1},
		{0x2b50, 0x2b50, 1},
		{0x2b55, 0x2b55, 1},
		{0x3030, 0x3030, 1},
		{0x303d, 0x303d, 1},
		{0x3297, 0x3297, 1},
		{0x3299, 0x3299, 1},
	},
	R32: []unicode.Range32{
		{0x1f000, 0x1f0ff, 1},
		{0x1f10d, 0x1f10f, 1},
		{0x1f12f, 0x1f12f, 1},
		{0x1f16c, 0x1f171, 1},
		{0x1f17e, 0x1f17f, 1},
		{0x1f18e, 0x1f18e, 1},
		{0x1f191, 0x1f19a, 1},
		{0x1f1ad, 0x1f1e5, 1},
		{0x1f201, 0x1f20f, 1},
		{0x1f21a, 0x1f21a, 1},
		{0x1f22f, 0x1f22f, 1},
		{0x1f232, 0x1f23a, 1},
		{0x1f23c, 0x1f23f, 1},
		{0x1f249, 0x1f3fa, 1},
		{0x1f400, 0x1f53d, 1},
		{0x1f546, 0x1f64f, 1},
		{0x1f680, 0x1f6ff, 1},
		{0x1f774, 0x1f77f, 1},
		{0x1f7d5, 0x1f7ff, 1},
		{0x1f80c, 0x1f80f, 1},
		{0x1f848, 0x1f84f, 1},
		{0x1f85a, 0x1f85f, 1},
		{0x1f888, 0x1f88f, 1},
		{0x1f8ae, 0x1f8ff, 1},
		{0x1f90c, 0x1f93a, 1},
		{0x1f93c, 0x1f945, 1},
		{0x1f947, 0x1faff, 1},
		{0x1fc00, 0x1fffd, 1},
	},
	LatinOffset: 2,
}
