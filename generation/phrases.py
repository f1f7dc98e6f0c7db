"""How a class is said in a query, and which classes are continuous by nature.

Phrases carry their article ("a dog barking", "rain") so templates can be plain format strings.
"""
from __future__ import annotations

import re

ESC50_PHRASES = {
    "dog": "a dog barking", "rooster": "a rooster crowing", "pig": "a pig grunting", "cow": "a cow mooing",
    "frog": "a frog croaking", "cat": "a cat meowing", "hen": "a hen clucking", "insects": "insects buzzing",
    "sheep": "a sheep bleating", "crow": "a crow cawing", "rain": "rain falling", "sea_waves": "waves crashing",
    "crackling_fire": "a fire crackling", "crickets": "crickets chirping", "chirping_birds": "birds chirping",
    "water_drops": "water dripping", "wind": "wind blowing", "pouring_water": "water being poured",
    "toilet_flush": "a toilet flushing", "thunderstorm": "thunder rumbling", "crying_baby": "a baby crying",
    "sneezing": "someone sneezing", "clapping": "hands clapping", "breathing": "someone breathing",
    "coughing": "someone coughing", "footsteps": "footsteps", "laughing": "someone laughing",
    "brushing_teeth": "teeth being brushed", "snoring": "someone snoring", "drinking_sipping": "someone sipping a drink",
    "door_wood_knock": "a knock on a wooden door", "mouse_click": "a mouse clicking", "keyboard_typing": "typing on a keyboard",
    "door_wood_creaks": "a wooden door creaking", "can_opening": "a can being opened", "washing_machine": "a washing machine running",
    "vacuum_cleaner": "a vacuum cleaner", "clock_alarm": "an alarm clock ringing", "clock_tick": "a clock ticking",
    "glass_breaking": "glass breaking", "helicopter": "a helicopter", "chainsaw": "a chainsaw", "siren": "a siren wailing",
    "car_horn": "a car horn", "engine": "an engine running", "train": "a train passing", "church_bells": "church bells ringing",
    "airplane": "an airplane flying over", "fireworks": "fireworks exploding", "hand_saw": "a hand saw cutting",
}

FSD50K_PHRASES = {
    "Bark": "a dog barking", "Meow": "a cat meowing", "Crowing_and_cock-a-doodle-doo": "a rooster crowing",
    "Car_passing_by": "a car passing by", "Siren": "a siren wailing", "Vehicle_horn_and_car_horn_and_honking": "a car horn",
    "Rain": "rain falling", "Wind": "wind blowing", "Thunder": "thunder rumbling", "Applause": "applause",
    "Knock": "a knock", "Doorbell": "a doorbell ringing", "Telephone": "a telephone ringing", "Typing": "typing",
    "Speech": "someone speaking", "Laughter": "someone laughing", "Cough": "someone coughing", "Sneeze": "someone sneezing",
    "Walk_and_footsteps": "footsteps", "Water_tap_and_faucet": "a running tap", "Toilet_flush": "a toilet flushing",
    "Glass": "glass clinking", "Shatter": "something shattering", "Gunshot_and_gunfire": "a gunshot",
    "Fireworks": "fireworks exploding", "Church_bell": "a church bell ringing", "Chirp_and_tweet": "a bird chirping",
    "Frog": "a frog croaking", "Engine": "an engine running", "Idling": "an engine idling", "Aircraft": "an aircraft",
    "Helicopter": "a helicopter", "Train": "a train passing", "Bicycle_bell": "a bicycle bell", "Buzz": "a buzzing sound",
    "Crackle": "crackling", "Drill": "a drill", "Sawing": "sawing", "Hammer": "hammering", "Clapping": "hands clapping",
    "Crying_and_sobbing": "someone crying", "Baby_cry_and_infant_cry": "a baby crying", "Whistling": "someone whistling",
    "Gurgling": "water gurgling", "Stream": "a stream flowing", "Ocean": "the ocean", "Fire": "a fire crackling",
}

# Classes that are continuous by nature (can be cropped or looped to any length); others are decided
# from the audio. Names from ESC-50 and FSD50K; the synthetic source states the kind itself.
CONTINUOUS_LABELS = {
    "rain", "sea_waves", "crackling_fire", "crickets", "chirping_birds", "wind", "pouring_water", "insects",
    "washing_machine", "vacuum_cleaner", "clock_tick", "helicopter", "chainsaw", "engine", "train", "airplane",
    "hand_saw", "brushing_teeth", "keyboard_typing", "thunderstorm", "water_drops", "siren",
    "Rain", "Wind", "Engine", "Idling", "Aircraft", "Helicopter", "Train", "Stream", "Ocean", "Fire", "Drill",
    "Buzz", "Crackle", "Water_tap_and_faucet", "Typing", "Applause", "Siren",
}


def default_phrase(label: str) -> str:
    """A readable fallback for a label no table knows: 'Car_passing_by' -> 'the sound of car passing by'."""
    words = re.sub(r"[_\-]+", " ", label).replace(" and ", " or ").strip().lower()
    return f"the sound of {words}"


def phrase_for(label: str, given: str | None = None) -> str:
    return given or ESC50_PHRASES.get(label) or FSD50K_PHRASES.get(label) or default_phrase(label)
