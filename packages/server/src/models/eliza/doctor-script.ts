import type { ElizaScript } from './eliza-script';

const APOLOGY_REPLIES = [
  "Please don't apologize.",
  'Apologies are not necessary.',
  'It did not bother me. Please continue.',
];

const QUESTION_REPLIES = [
  'Why do you ask?',
  'Does that question interest you?',
  'What is it you really want to know?',
  'Are such questions much on your mind?',
  'What answer would please you most?',
  'What do you think?',
  'What comes to mind when you ask that?',
  'Have you asked anyone else?',
];

const LIKENESS_REPLIES = [
  'In what way?',
  'What resemblance do you see?',
  'What does that similarity suggest to you?',
  'What other connections do you see?',
  'Could there really be some connection?',
];

/**
 * The offline model's script: the keywords, decompositions and reassemblies of Weizenbaum's DOCTOR (1966),
 * reworded here and there, plus a few for greetings, names and thanks so that a chat client gets sensible
 * answers to its first lines.
 */
/** The words of sadness: the `@sad` group, and the keyword that answers them. */
const SAD_WORDS = [
  'sad',
  'unhappy',
  'depressed',
  'sick',
  'miserable',
  'lonely',
  'anxious',
  'worried',
  'upset',
  'tired',
  'afraid',
  'scared',
  'angry',
];

export const DOCTOR_SCRIPT: ElizaScript = {
  groups: {
    belief: ['feel', 'think', 'believe', 'wish', 'suppose', 'guess'],
    desire: ['want', 'need', 'crave'],
    sad: SAD_WORDS,
    happy: ['happy', 'glad', 'elated', 'better', 'excited', 'cheerful'],
    family: [
      'mother',
      'mom',
      'mum',
      'father',
      'dad',
      'sister',
      'brother',
      'wife',
      'husband',
      'children',
      'child',
      'son',
      'daughter',
      'parents',
      'family',
      'grandmother',
      'grandfather',
    ],
    everyone: ['everyone', 'everybody', 'nobody', 'noone'],
    remember: ['remember', 'recall', 'recollect'],
    dreamed: ['dreamed', 'dreamt'],
    always: ['always', 'never'],
  },
  keywords: [
    {
      words: ['computer', 'computers', 'machine', 'machines', 'robot', 'robots'],
      rank: 50,
      rules: [
        {
          pattern: '*',
          replies: [
            'Do computers worry you?',
            'Why do you mention computers?',
            'What do you think machines have to do with your problem?',
            "Don't you think computers can help people?",
            'What about machines worries you?',
          ],
        },
      ],
    },
    {
      words: ['name'],
      rank: 15,
      rules: [
        {
          pattern: '* my name is *',
          replies: [
            'Pleased to meet you, {5}. What would you like to talk about?',
            'Hello, {5}. What is on your mind today?',
          ],
        },
        {
          pattern: '* your name *',
          replies: [
            'I am {name}. But we were talking about you.',
            'You can call me {name}. What brings you here?',
          ],
        },
        { pattern: '*', replies: ['I am not interested in names. Please go on.'] },
      ],
    },
    {
      words: ['alike', 'same', 'similar'],
      rank: 10,
      rules: [{ pattern: '*', replies: LIKENESS_REPLIES }],
    },
    {
      words: ['remember', 'recall', 'recollect'],
      rank: 5,
      rules: [
        {
          pattern: '* i @remember *',
          replies: [
            'Do you often think of {4}?',
            'Does thinking of {4} bring anything else to mind?',
            'Why do you remember {4} just now?',
            'What in the present situation reminds you of {4}?',
          ],
        },
        {
          pattern: '* do you @remember *',
          replies: [
            'Did you think I would forget {5}?',
            'Why do you think I should recall {5} now?',
            'What about {5}?',
          ],
        },
      ],
    },
    {
      words: ['forget', 'forgot'],
      rank: 5,
      rules: [
        {
          pattern: '* i forget *',
          replies: [
            'Can you think of why you might forget {4}?',
            "Why can't you remember {4}?",
            'Does it bother you to forget that?',
            'Are you generally forgetful?',
          ],
        },
        {
          pattern: '* did you forget *',
          replies: [
            'Why do you ask?',
            'Are you sure you told me?',
            'Would it bother you if I forgot {5}?',
          ],
        },
      ],
    },
    {
      words: ['dreamed', 'dreamt'],
      rank: 4,
      rules: [
        {
          pattern: '* i @dreamed *',
          replies: [
            'Really, {4}?',
            'Have you ever fantasized {4} while you were awake?',
            'Have you ever dreamed {4} before?',
          ],
        },
      ],
    },
    {
      words: ['dream', 'dreams', 'nightmare'],
      rank: 3,
      rules: [
        {
          pattern: '*',
          replies: [
            'What does that dream suggest to you?',
            'Do you dream often?',
            'What persons appear in your dreams?',
            'Do you believe that dreams have something to do with your problem?',
          ],
        },
      ],
    },
    {
      words: ['if'],
      rank: 3,
      rules: [
        {
          pattern: '* if *',
          replies: [
            "Do you think it's likely that {3}?",
            'Do you wish that {3}?',
            'What do you know about {3}?',
            'What would you do if {3}?',
            'But what are the chances that {3}?',
          ],
        },
      ],
    },
    {
      words: SAD_WORDS,
      rank: 3,
      rules: [
        {
          pattern: '* i am * @sad *',
          replies: [
            'I am sorry to hear that you are {5}.',
            'Do you think coming here will help you not to be {5}?',
            "I'm sure it's not pleasant to be {5}.",
            'Can you explain what made you {5}?',
          ],
        },
        {
          pattern: '* i feel * @sad *',
          replies: [
            'What do you think makes you feel {5}?',
            'How long have you felt {5}?',
            'I am sorry to hear that. Tell me more.',
          ],
        },
      ],
    },
    {
      words: ['happy', 'glad', 'elated', 'excited', 'cheerful'],
      rank: 3,
      rules: [
        {
          pattern: '* i am * @happy *',
          replies: [
            'How have I helped you to be {5}?',
            'What makes you {5} just now?',
            'Can you explain why you are suddenly {5}?',
          ],
        },
        {
          pattern: '* i feel * @happy *',
          replies: ['What makes you feel {5}?', 'That sounds good. Tell me more.'],
        },
      ],
    },
    {
      words: ['my'],
      rank: 2,
      rules: [
        {
          pattern: '* my * @family *',
          replies: [
            'Tell me more about your family.',
            'Who else in your family {5}?',
            'Your {4}?',
            'What else comes to mind when you think of your {4}?',
          ],
        },
        {
          pattern: '* my *',
          replies: [
            'Your {3}?',
            'Why do you say your {3}?',
            'Does that suggest anything else which belongs to you?',
            'Is that something that matters a lot to you?',
          ],
        },
      ],
    },
    {
      words: ['everyone', 'everybody', 'nobody', 'noone'],
      rank: 2,
      rules: [
        {
          pattern: '* @everyone *',
          replies: [
            'Really, {2}?',
            'Surely not {2}.',
            'Can you think of anyone in particular?',
            'Who, for example?',
            "You have a particular person in mind, don't you?",
          ],
        },
      ],
    },
    {
      words: ['was', 'were'],
      rank: 2,
      rules: [
        {
          pattern: '* was i *',
          replies: [
            'What if you were {4}?',
            'Do you think you were {4}?',
            'Were you {4}?',
            'What would it mean if you were {4}?',
          ],
        },
        {
          pattern: '* i was *',
          replies: [
            'Were you really?',
            'Why do you tell me you were {4} now?',
            'Perhaps I already know you were {4}.',
          ],
        },
        {
          pattern: '* were you *',
          replies: [
            'Would you like to believe I was {4}?',
            'What suggests that I was {4}?',
            'Perhaps I was {4}.',
            'What if I had been {4}?',
          ],
        },
      ],
    },
    {
      words: ['help'],
      rank: 1,
      rules: [
        {
          pattern: '*',
          replies: [
            'What kind of help are you looking for?',
            'How do you think I could help?',
            'What would help you most right now?',
          ],
        },
      ],
    },
    {
      words: ['always', 'never'],
      rank: 1,
      rules: [
        {
          pattern: '* @always *',
          replies: [
            'Can you think of a specific example?',
            'When?',
            'What incident are you thinking of?',
            'Really, {2}?',
          ],
        },
      ],
    },
    {
      words: ['i'],
      rank: 0,
      rules: [
        {
          pattern: '* i @desire *',
          replies: [
            'What would it mean to you if you got {4}?',
            'Why do you want {4}?',
            'Suppose you got {4} soon. What then?',
            'What if you never got {4}?',
            'What does wanting {4} have to do with this discussion?',
          ],
        },
        {
          pattern: '* i @belief i *',
          replies: [
            'Do you really think so?',
            'But you are not sure you {5}.',
            'Do you really doubt you {5}?',
          ],
        },
        {
          pattern: '* i @belief *',
          replies: [
            'Do you really think so?',
            'But you are not sure {4}.',
            'What makes you say that?',
          ],
        },
        {
          pattern: '* i am *',
          replies: [
            'Is it because you are {4} that you came to me?',
            'How long have you been {4}?',
            'Do you believe it is normal to be {4}?',
            'Do you enjoy being {4}?',
            'Do you know anyone else who is {4}?',
          ],
        },
        {
          pattern: "* i can't *",
          replies: [
            "How do you know that you can't {4}?",
            'Have you tried?',
            'Perhaps you could {4} now.',
            'Do you really want to be able to {4}?',
            'What if you could {4}?',
          ],
        },
        {
          pattern: "* i don't *",
          replies: [
            "Don't you really {4}?",
            "Why don't you {4}?",
            'Do you wish to be able to {4}?',
            'Does that trouble you?',
          ],
        },
        {
          pattern: '* i feel *',
          replies: [
            'Tell me more about such feelings.',
            'Do you often feel {4}?',
            'Do you enjoy feeling {4}?',
            'Of what does feeling {4} remind you?',
          ],
        },
        {
          pattern: '* i * you *',
          replies: [
            'Perhaps in your fantasies we {3} each other.',
            'Do you wish to {3} me?',
            'You seem to need to {3} me.',
            'Do you {3} anyone else?',
          ],
        },
        {
          pattern: '*',
          replies: [
            'Can you elaborate on that?',
            'Do you say that for some special reason?',
            "That's quite interesting. Why?",
          ],
        },
      ],
    },
    {
      words: ['you'],
      rank: 0,
      rules: [
        { pattern: '* you remind me of *', replies: LIKENESS_REPLIES },
        {
          pattern: '* you are *',
          replies: [
            'What makes you think I am {4}?',
            'Does it please you to believe I am {4}?',
            'Do you sometimes wish you were {4}?',
            'Perhaps you would like to be {4}.',
          ],
        },
        {
          pattern: "* you don't *",
          replies: [
            "What makes you think I don't {4}?",
            'Would you like me to {4}?',
            'Do you wish I would {4}?',
          ],
        },
        {
          pattern: '* you * me *',
          replies: [
            'Why do you think I {3} you?',
            "You like to think I {3} you, don't you?",
            'What makes you think I {3} you?',
            'Really, I {3} you?',
            'Suppose I did {3} you. What would that mean?',
          ],
        },
        {
          pattern: '* are you *',
          replies: [
            'Why are you interested in whether I am {4} or not?',
            "Would you prefer if I weren't {4}?",
            'Perhaps I am {4} in your fantasies.',
            'Do you sometimes think I am {4}?',
          ],
        },
        {
          pattern: '* can you *',
          replies: [
            "You believe I can {4}, don't you?",
            'You want me to be able to {4}.',
            'Perhaps you would like to be able to {4} yourself.',
          ],
        },
        {
          pattern: '* you *',
          replies: [
            'We were discussing you, not me.',
            "You're not really talking about me, are you?",
            'What are your feelings now?',
          ],
        },
      ],
    },
    {
      words: ['can'],
      rank: 0,
      rules: [
        {
          pattern: '* can i *',
          replies: [
            'Whether or not you can {4} depends on you more than on me.',
            'Do you want to be able to {4}?',
            "Perhaps you don't want to {4}.",
          ],
        },
      ],
    },
    {
      words: ['are'],
      rank: 0,
      rules: [
        {
          pattern: '* are *',
          replies: [
            'Did you think they might not be {3}?',
            'Would you like it if they were not {3}?',
            'What if they were not {3}?',
            'Possibly they are {3}.',
          ],
        },
      ],
    },
    {
      words: ['why'],
      rank: 0,
      rules: [
        {
          pattern: "* why don't you *",
          replies: [
            "Do you believe I don't {5}?",
            'Perhaps I will {5} in good time.',
            'You want me to {5}?',
          ],
        },
        {
          pattern: "* why can't i *",
          replies: [
            'Do you think you should be able to {5}?',
            'Do you believe this will help you to {5}?',
            "Have you any idea why you can't {5}?",
          ],
        },
        { pattern: '*', replies: QUESTION_REPLIES },
      ],
    },
    {
      words: ['what', 'how', 'when', 'who', 'where'],
      rank: 0,
      rules: [
        {
          pattern: '* how are you *',
          replies: [
            'I am well, thank you. But we are here to talk about you.',
            'Fine, thanks. How are you feeling?',
          ],
        },
        { pattern: '*', replies: QUESTION_REPLIES },
      ],
    },
    {
      words: ['because'],
      rank: 0,
      rules: [
        {
          pattern: '*',
          replies: [
            'Is that the real reason?',
            "Don't any other reasons come to mind?",
            'Does that reason seem to explain anything else?',
            'What other reasons might there be?',
          ],
        },
      ],
    },
    {
      words: ['perhaps', 'maybe', 'probably'],
      rank: 0,
      rules: [
        {
          pattern: '*',
          replies: [
            "You don't seem quite certain.",
            'Why the uncertain tone?',
            "Can't you be more positive?",
            "You aren't sure?",
            "Don't you know?",
          ],
        },
      ],
    },
    {
      words: ['yes', 'certainly', 'yeah'],
      rank: 0,
      rules: [
        {
          pattern: '*',
          replies: ['You seem to be quite positive.', 'You are sure.', 'I see.', 'I understand.'],
        },
      ],
    },
    {
      words: ['no', 'nope'],
      rank: 0,
      rules: [
        {
          pattern: '*',
          replies: [
            'Are you saying no just to be negative?',
            'You are being a bit negative.',
            'Why not?',
            "Why 'no'?",
          ],
        },
      ],
    },
    {
      words: ['sorry', 'apologize', 'apologise'],
      rank: 0,
      rules: [{ pattern: '*', replies: APOLOGY_REPLIES }],
    },
    {
      words: ['thanks', 'thank'],
      rank: 0,
      rules: [
        {
          pattern: '*',
          replies: ["You're welcome. What else is on your mind?", 'Not at all. Please go on.'],
        },
      ],
    },
    {
      words: ['hello', 'hi', 'hey', 'greetings'],
      rank: 0,
      rules: [
        {
          pattern: '*',
          replies: [
            'How do you do. Please tell me what is on your mind.',
            'Hi. What seems to be your problem?',
            'Hello, I am {name}. What would you like to talk about?',
          ],
        },
      ],
    },
    {
      words: ['bye', 'goodbye', 'farewell'],
      rank: 0,
      rules: [
        {
          pattern: '*',
          replies: [
            'Goodbye. It was nice talking to you.',
            'Goodbye. Come back whenever you like.',
          ],
        },
      ],
    },
  ],
  memory: {
    pattern: '* my *',
    replies: [
      'Earlier you said your {3}.',
      "Let's discuss further why your {3}.",
      'Does that have anything to do with the fact that your {3}?',
      'But your {3}.',
    ],
  },
  fallbacks: [
    "I'm not sure I understand you fully.",
    'Please go on.',
    'What does that suggest to you?',
    'Do you feel strongly about discussing such things?',
    'That is interesting. Please continue.',
    'Tell me more about that.',
    'Does talking about this bother you?',
  ],
  greetings: [
    'Hello, I am {name}. What would you like to talk about?',
    'How do you do. Please tell me what is on your mind.',
  ],
};
